"""MCP tasks (2025-11-25): a task-augmented campaign_start served from the campaign record.

The mcp 2.3 client validates every tools/call result against the 2025-11-25 surface as
CallToolResult, so it cannot receive the CreateTaskResult a task-augmented call returns (even
through ``session.send_request``). These tests speak JSON-RPC over real streamable HTTP to check
the wire shapes; the SDK round trip uses the 1.x SDK's task API (tests/e2e/clients/test_sdk_v1.py).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import anyio

from tests.campaigns import QUESTION
from tests.servers import config_env, http_server

ACCEPT = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


class RawSession:
    def __init__(self, http: aiohttp.ClientSession, url: str) -> None:
        self.http, self.url, self.headers, self.next_id = http, url, dict(ACCEPT), 1
        self.notifications: list[dict[str, Any]] = []
        self.changed = anyio.Event()
        self.listening = anyio.Event()
        """Set once the GET stream is open: notifications sent before that have nowhere to go."""

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        async with self.http.post(self.url, json=body, headers=self.headers) as resp:
            if "mcp-session-id" in resp.headers:
                self.headers["mcp-session-id"] = resp.headers["mcp-session-id"]
            text = await resp.text()
        for line in text.splitlines():
            if line.startswith("data:"):
                message = json.loads(line[5:])
                if message.get("id") == self.next_id:
                    return message
                self.notifications.append(message)
        return json.loads(text)

    async def listen(self) -> None:
        async with self.http.get(self.url, headers={**self.headers, "Accept": "text/event-stream"}) as resp:
            assert resp.status == 200, await resp.text()
            self.listening.set()
            async for raw in resp.content:
                line = raw.decode().strip()
                if line.startswith("data:"):
                    self.notifications.append(json.loads(line[5:]))
                    self.changed.set()
                    self.changed = anyio.Event()


@asynccontextmanager
async def raw_session(base: str) -> AsyncIterator[RawSession]:
    async with aiohttp.ClientSession() as http, anyio.create_task_group() as tg:
        session = RawSession(http, f"{base}/mcp")
        init = await session.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "tasks", "version": "1"}},
        )
        assert init["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"] == {}
        session.headers["mcp-protocol-version"] = "2025-11-25"
        async with http.post(
            session.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session.headers
        ) as resp:
            await resp.read()
        tg.start_soon(session.listen)
        with anyio.fail_after(30):  # a task's status notifications go to this stream: open it first
            await session.listening.wait()
        yield session
        tg.cancel_scope.cancel()


def start_args(question: str, **task: Any) -> dict[str, Any]:
    return {
        "name": "tool_call",
        "arguments": {"name": "campaign_start", "arguments": {"question": question}},
        "task": task,
    }


async def test_task_round_trip(data_dir: Path) -> None:
    async with http_server(data_dir, **config_env({"jobs": {"step_delay_s": 0.1}})) as base, raw_session(base) as s:
        listed = await s.request("tools/list", {})
        assert [t["name"] for t in listed["result"]["tools"]] == ["tool_search", "tool_call"]
        hit = await s.request(
            "tools/call", {"name": "tool_search", "arguments": {"query": "start a research campaign"}}
        )
        assert "campaign_start" in hit["result"]["content"][0]["text"]
        full = await s.request("tools/list", {})  # now revealed, with its task hint
        start_tool = next(t for t in full["result"]["tools"] if t["name"] == "campaign_start")
        assert start_tool["execution"]["taskSupport"] == "optional"

        created = (await s.request("tools/call", start_args(QUESTION, ttl=600000)))["result"]["task"]
        assert created["status"] == "working" and created["ttl"] == 600000
        task_id = created["taskId"]
        got = (await s.request("tasks/get", {"taskId": task_id}))["result"]
        assert got["taskId"] == task_id and got["status"] in ("working", "completed")
        with anyio.fail_after(30):
            result = (await s.request("tasks/result", {"taskId": task_id}))["result"]
        assert result["isError"] is False and result["structuredContent"]["phase"] == "complete"
        assert result["content"][0]["text"].startswith("# Research report")
        assert result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"] == task_id
        assert (await s.request("tasks/get", {"taskId": task_id}))["result"]["status"] == "completed"
        assert [t["taskId"] for t in (await s.request("tasks/list", {}))["result"]["tasks"]] == [task_id]
        with anyio.fail_after(30):
            while not any(
                n.get("method") == "notifications/tasks/status" and n["params"]["status"] == "completed"
                for n in s.notifications
            ):
                await s.changed.wait()
        for method, params, expected in [
            ("tasks/cancel", {"taskId": task_id}, "already complete"),
            ("tasks/get", {"taskId": "cnope"}, "no task"),
            ("tools/call", {"name": "server_info", "arguments": {}, "task": {}}, "only campaign_start"),
        ]:
            error = (await s.request(method, params))["error"]
            assert expected in error["message"], (method, error)


async def test_task_cancel(data_dir: Path) -> None:
    async with http_server(data_dir, **config_env({"jobs": {"step_delay_s": 0.5}})) as base, raw_session(base) as s:
        created = (
            await s.request("tools/call", {"name": "campaign_start", "arguments": {"question": QUESTION}, "task": {}})
        )["result"]["task"]
        cancelled = (await s.request("tasks/cancel", {"taskId": created["taskId"]}))["result"]
        assert cancelled["status"] == "cancelled"
        result = (await s.request("tasks/result", {"taskId": created["taskId"]}))["result"]
        assert result["isError"] is True and result["structuredContent"]["phase"] == "cancelled"


async def test_task_is_input_required_while_a_budget_question_is_open(data_dir: Path) -> None:
    from tests.campaigns import TINY_BUDGET, priced
    from tests.fake_llm import fake_llm

    async with fake_llm() as llm, http_server(data_dir, **config_env(priced(llm.url))) as base, raw_session(base) as s:
        created = await s.request(
            "tools/call",
            {"name": "campaign_start", "task": {}, "arguments": {"question": QUESTION, "budget": TINY_BUDGET}},
        )
        task_id = created["result"]["task"]["taskId"]
        with anyio.fail_after(60):
            while True:
                changed = s.changed  # taken before the request: a notification during it still wakes us
                task = (await s.request("tasks/get", {"taskId": task_id}))["result"]
                if task["status"] == "input_required":
                    break
                await changed.wait()
        assert "budget_decide" in task["statusMessage"]
        decided = await s.request(
            "tools/call",
            {
                "name": "budget_decide",
                "arguments": {"campaign_id": task_id, "decision": "approve_override", "new_budget": 1.0},
            },
        )
        assert decided["result"]["isError"] is False
        with anyio.fail_after(30):
            result = (await s.request("tasks/result", {"taskId": task_id}))["result"]
        assert result["structuredContent"]["phase"] == "complete"


async def test_task_start_on_an_empty_corpus_is_a_jsonrpc_error_naming_the_ways_to_add(empty_data_dir: Path) -> None:
    async with http_server(empty_data_dir) as base, raw_session(base) as s:
        reply = await s.request("tools/call", start_args(QUESTION, ttl=600000))
        assert "error" in reply, reply
        message = reply["error"]["message"]
        assert "corpus is empty" in message and "deepr-mcp corpus add PATH" in message and "sample=true" in message
        listed = await s.request(
            "tools/call", {"name": "tool_call", "arguments": {"name": "corpus_list", "arguments": {}}}
        )
        assert json.loads(listed["result"]["content"][0]["text"])["documents"] == 0  # nothing added
