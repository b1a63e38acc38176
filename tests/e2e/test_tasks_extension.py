"""The 2026-07-28 tasks extension (SEP-2663) over real streamable HTTP, beside the 2025-11-25 tasks.

The mcp 2.3 client has no tasks-extension support (it would read ``resultType: "task"`` as an
unclaimed shape), so these tests speak JSON-RPC with the modern per-request envelope and the
routing headers a 2026-07-28 client sends.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import aiohttp

from tests.campaigns import QUESTION, TINY_BUDGET, priced
from tests.clients import EXTENSION, JSON_ACCEPT, modern_client
from tests.fake_llm import fake_llm
from tests.servers import config_env, http_server

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")


def start(question: str = QUESTION, **arguments: Any) -> dict[str, Any]:
    return {
        "name": "tool_call",
        "arguments": {"name": "campaign_start", "arguments": {"question": question, **arguments}},
    }


async def test_modern_task_round_trip(data_dir: Path) -> None:
    async with http_server(data_dir, **config_env({"jobs": {"step_delay_s": 0.1}})) as base, modern_client(base) as c:
        discovered = await c.result("server/discover", {})
        assert discovered["capabilities"]["extensions"][EXTENSION] == {}
        assert "tasks" not in discovered["capabilities"]  # the 2025-11-25 slot stays out of this era

        created = await c.result("tools/call", start())
        assert created["resultType"] == "task" and "task" not in created
        assert created["status"] == "working" and created["taskId"].startswith("c")
        assert ISO.match(created["createdAt"]) and ISO.match(created["lastUpdatedAt"])
        assert "ttlMs" in created and created["pollIntervalMs"] == 2000
        assert not {"ttl", "pollInterval", "result", "error", "inputRequests", "requestState"} & set(created)
        task_id = created["taskId"]

        done = await c.until(task_id, "completed", "failed", "cancelled")
        assert done["status"] == "completed" and done["taskId"] == task_id
        assert done["result"]["isError"] is False
        assert done["result"]["content"][0]["text"].startswith("# Research report")
        assert done["result"]["structuredContent"]["phase"] == "complete"
        assert "io.modelcontextprotocol/related-task" not in done["result"].get("_meta", {})

        ack = await c.result("tasks/cancel", {"taskId": task_id})  # terminal: the same empty ack
        assert ack["resultType"] == "complete" and not {"taskId", "status", "result"} & set(ack)
        assert (await c.result("tasks/get", {"taskId": task_id}))["status"] == "completed"

        for removed in ("tasks/result", "tasks/list"):
            error = await c.error(removed, {"taskId": task_id})
            assert error["code"] == -32601 and "does not exist in protocol 2026-07-28" in error["message"]
        for method, params in [
            ("tasks/get", {"taskId": task_id}),
            ("tasks/update", {"taskId": task_id, "inputResponses": {}}),
            ("tasks/cancel", {"taskId": task_id}),
        ]:
            error = await c.error(method, params, extension=False)
            assert error["code"] == -32021 and EXTENSION in error["message"], (method, error)
            assert error["data"] == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
        for bad in ({"taskId": "cnope"}, {"taskId": 5}, {}):
            assert (await c.error("tasks/get", bad))["code"] == -32602, bad

        # Without the extension campaign_start runs as today: a plain tool result naming the campaign.
        plain = await c.result("tools/call", start(), extension=False)
        assert plain["resultType"] == "complete" and "taskId" not in plain
        assert plain["structuredContent"]["campaign_id"].startswith("c")


async def test_modern_task_cancel(data_dir: Path) -> None:
    async with http_server(data_dir, **config_env({"jobs": {"step_delay_s": 0.5}})) as base, modern_client(base) as c:
        created = await c.result("tools/call", {"name": "campaign_start", "arguments": {"question": QUESTION}})
        ack = await c.result("tasks/cancel", {"taskId": created["taskId"]})
        assert ack["resultType"] == "complete" and "status" not in ack
        cancelled = await c.until(created["taskId"], "cancelled", "completed", "failed")
        assert cancelled["status"] == "cancelled"
        assert not {"result", "error"} & set(cancelled)


async def test_modern_task_asks_for_budget_and_tasks_update_answers(data_dir: Path) -> None:
    async with (
        fake_llm() as llm,
        http_server(data_dir, **config_env(priced(llm.url))) as base,
        modern_client(base) as c,
    ):
        created = await c.result("tools/call", start(budget=TINY_BUDGET))
        task = await c.until(created["taskId"], "input_required", "completed", "failed")
        assert task["status"] == "input_required", task
        asked = task["inputRequests"]["budget"]
        assert asked["method"] == "elicitation/create"
        assert "decision" in asked["params"]["requestedSchema"]["properties"]

        bad = {"budget": {"action": "accept", "content": {"decision": "approve_override", "new_budget": 0}}}
        error = await c.error("tasks/update", {"taskId": created["taskId"], "inputResponses": bad})
        assert error["code"] == -32602 and "must exceed" in error["message"]
        wrong_shape = {"budget": {"action": "maybe"}}
        error = await c.error("tasks/update", {"taskId": created["taskId"], "inputResponses": wrong_shape})
        assert error["code"] == -32602 and "elicitation result" in error["message"]
        assert (await c.result("tasks/get", {"taskId": created["taskId"]}))["status"] == "input_required"

        good = {"budget": {"action": "accept", "content": {"decision": "approve_override", "new_budget": 1.0}}}
        ack = await c.result("tasks/update", {"taskId": created["taskId"], "inputResponses": good})
        assert ack["resultType"] == "complete"
        done = await c.until(created["taskId"], "completed", "failed", "cancelled")
        assert done["status"] == "completed" and done["result"]["structuredContent"]["phase"] == "complete"
        decisions = done["result"]["structuredContent"]["decisions"]
        assert any(d["channel"] == "tasks/update" and d["new_budget"] == 1.0 for d in decisions), decisions


async def test_handshake_clients_keep_2025_tasks_and_have_no_tasks_update(data_dir: Path) -> None:
    async with http_server(data_dir) as base, aiohttp.ClientSession() as http:
        init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "h", "version": "1"}}
        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}
        async with http.post(f"{base}/mcp", json=body, headers=JSON_ACCEPT) as resp:
            caps = json.loads((await resp.text()).split("data:", 1)[1].splitlines()[0])["result"]["capabilities"]
            headers = {
                **JSON_ACCEPT,
                "mcp-session-id": resp.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-11-25",
            }
        assert caps["tasks"]["list"] == {} and EXTENSION not in (caps.get("extensions") or {})
        update = {"jsonrpc": "2.0", "id": 2, "method": "tasks/update", "params": {"taskId": "x", "inputResponses": {}}}
        async with http.post(f"{base}/mcp", json=update, headers=headers) as resp:
            reply = json.loads((await resp.text()).split("data:", 1)[1].splitlines()[0])
        assert reply["error"]["code"] == -32601


async def test_modern_task_start_on_an_empty_corpus_is_a_tool_error_naming_the_ways_to_add(
    empty_data_dir: Path,
) -> None:
    """The server decides what runs as a task, so a refused start is answered as the plain call is."""
    async with http_server(empty_data_dir) as base, modern_client(base) as c:
        refused = await c.result("tools/call", start())
        assert refused["resultType"] == "complete" and refused["isError"] is True and "taskId" not in refused
        message = refused["content"][0]["text"]
        assert "corpus is empty" in message and "sample=true" in message, refused
        listed = await c.result(
            "tools/call", {"name": "tool_call", "arguments": {"name": "corpus_list", "arguments": {}}}
        )
        assert listed["structuredContent"]["documents"] == 0  # nothing added
