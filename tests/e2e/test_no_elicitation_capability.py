"""A 2026-07-28 client that declared no elicitation capability is never handed an
``elicitation/create`` input request (issue 31 item 15): its calls touching a campaign with an
open budget question answer as usual, pointing at ``budget_decide``, which settles it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from tests.campaigns import QUESTION, TINY_BUDGET, priced
from tests.clients import call, modern_client
from tests.fake_llm import fake_llm
from tests.servers import config_env, http_server


def via_gateway(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"name": "tool_call", "arguments": {"name": name, "arguments": arguments}}


async def test_a_client_without_elicitation_is_not_asked_and_decides_with_budget_decide(data_dir: Path) -> None:
    async with (
        fake_llm() as llm,
        http_server(data_dir, **config_env(priced(llm.url))) as base,
        Client(f"{base}/mcp", mode="legacy") as starter,
        modern_client(base, elicitation=False) as modern,
        modern_client(base) as capable,
    ):
        cid = (await call(starter, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
        with anyio.fail_after(120):  # a loaded machine may need more than one wait for the question
            until_asked = {"campaign_id": cid, "until": "decision", "timeout_s": 30}
            while not (await call(starter, "campaign_wait", until_asked))["decision_pending"]:
                pass

        for name, arguments in [
            ("campaign_status", {"campaign_id": cid}),
            ("campaign_wait", {"campaign_id": cid, "until": "decision", "timeout_s": 1}),
        ]:
            answer = await modern.result("tools/call", via_gateway(name, arguments))
            assert answer.get("resultType", "complete") == "complete" and "inputRequests" not in answer, answer
            assert not answer["isError"], answer
            assert "budget_decide" in answer["content"][0]["text"], answer  # the channel left to it
        # a client that did declare it is still asked inline
        asked = await capable.result("tools/call", via_gateway("campaign_status", {"campaign_id": cid}))
        assert asked["resultType"] == "input_required" and "budget" in asked["inputRequests"], asked

        decide = via_gateway("budget_decide", {"campaign_id": cid, "decision": "approve_override", "new_budget": 1.0})
        decided = await modern.result("tools/call", decide)
        assert not decided["isError"], decided
        with anyio.fail_after(60):
            until_complete = {"campaign_id": cid, "until": "complete"}
            while (done := await call(starter, "campaign_wait", until_complete))["timed_out"]:
                pass
        status = await call(starter, "campaign_status", {"campaign_id": cid})
        assert done["phase"] == "complete"
        assert [(d["decision"], d["channel"]) for d in status["decisions"]] == [("approve_override", "budget_decide")]


async def test_a_task_of_a_client_without_elicitation_points_at_budget_decide(data_dir: Path) -> None:
    async with (
        fake_llm() as llm,
        http_server(data_dir, **config_env(priced(llm.url))) as base,
        modern_client(base, elicitation=False) as c,
    ):
        start = via_gateway("campaign_start", {"question": QUESTION, "budget": TINY_BUDGET})
        task_id = (await c.result("tools/call", start))["taskId"]
        with anyio.fail_after(60):
            while "budget_decide" not in (task := await c.result("tasks/get", {"taskId": task_id})).get(
                "statusMessage", ""
            ):
                assert task["status"] not in {"input_required", "completed", "failed", "cancelled"}, task
                await anyio.sleep(0.05)
        assert task["status"] == "working" and "inputRequests" not in task, task
        decide = via_gateway("budget_decide", {"campaign_id": task_id, "decision": "approve_override", "new_budget": 1})
        assert not (await c.result("tools/call", decide))["isError"]
        done = await c.until(task_id, "completed", "failed", "cancelled")
        assert done["status"] == "completed", done
