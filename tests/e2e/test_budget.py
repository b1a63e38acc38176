"""Budget questions on a priced provider: nothing is spent past the budget without a decision."""

from __future__ import annotations

from contextlib import aclosing
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.campaigns import QUESTION, TINY_BUDGET, assert_spend_within_budget, priced
from tests.clients import call, connect, text_of
from tests.fake_llm import fake_llm


async def wait_for_question(client: Any, cid: str) -> dict[str, Any]:
    answer = await call(client, "campaign_wait", {"campaign_id": cid, "until": "decision", "timeout_s": 30})
    assert answer["decision_pending"], answer
    assert answer["next"]["tool"] == "budget_decide"
    return answer


@pytest.mark.parametrize("decision", ["approve_override", "optimize_for_cost", "abort"])
async def test_budget_decide_channel(decision: str, data_dir: Path) -> None:
    async with fake_llm() as llm, connect("inproc", "legacy", data_dir, config=priced(llm.url)) as client:
        cid = (await call(client, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
        pending = await wait_for_question(client, cid)
        status = await call(client, "campaign_status", {"campaign_id": cid})
        question = status["budget_question"]
        assert status["phase"] == "awaiting_approval"
        assert question["spent"] + question["estimated_cost"] > question["budget"]
        assert_spend_within_budget(status)
        args: dict[str, Any] = {"campaign_id": cid, "decision": decision}
        if decision == "approve_override":
            args["new_budget"] = 1.0
        await call(client, "budget_decide", args)
        late = await client.call_tool("tool_call", {"name": "budget_decide", "arguments": args})
        assert late.is_error and "no open budget question" in text_of(late)
        with anyio.fail_after(120):  # a hang guard; a wait that times out on a slow machine is repeated
            while True:
                done = await call(client, "campaign_wait", {"campaign_id": cid, "until": "complete", "timeout_s": 30})
                if done["decision_pending"]:  # optimize_for_cost may still be over: abort the second time
                    await call(client, "budget_decide", {"campaign_id": cid, "decision": "abort"})
                    continue
                if not done["timed_out"]:
                    break
        final = await call(client, "campaign_status", {"campaign_id": cid})
        assert_spend_within_budget(final)
        assert final["decisions"][0]["decision"] == decision
        assert final["decisions"][0]["channel"] == "budget_decide"
        if decision == "approve_override":
            assert final["phase"] == "complete" and final["cost"] > TINY_BUDGET
        elif decision == "abort":
            assert final["phase"] == "cancelled"
            report = text_of(await client.call_tool("campaign_report", {"campaign_id": cid}))
            assert "Partial report" in report
        else:
            assert final["cost_mode"] == "cheap"
            steps = (await call(client, "cost_report", {"campaign_id": cid}))["steps"]
            assert any(s["model"].startswith("gpt-4o-mini") for s in steps)
        assert pending["cost"] <= TINY_BUDGET


async def test_an_invalid_new_budget_is_refused_and_the_question_stays_open(data_dir: Path) -> None:
    """Checked while the question is certainly open (the default 30 s question timeout): with the
    1 s timeout of the test below, a slow machine could see the question expire before these calls."""
    async with fake_llm() as llm, connect("inproc", "legacy", data_dir, config=priced(llm.url)) as client:
        cid = (await call(client, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
        await wait_for_question(client, cid)
        for args, expected in [
            ({"decision": "approve_override"}, "needs new_budget"),
            ({"decision": "approve_override", "new_budget": 0.0000001}, "must exceed"),
        ]:
            bad = await client.call_tool(
                "tool_call", {"name": "budget_decide", "arguments": {"campaign_id": cid, **args}}
            )
            assert bad.is_error and expected in text_of(bad)
        status = await call(client, "campaign_status", {"campaign_id": cid})
        assert status["phase"] == "awaiting_approval" and status["budget_question"]["answer"] is None
        assert status["decisions"] == []  # nothing was recorded for the refused answers
        await call(client, "budget_decide", {"campaign_id": cid, "decision": "abort"})


async def test_an_unanswered_question_takes_the_default_after_its_timeout(data_dir: Path) -> None:
    """Nobody answers: after the 1 s question timeout the default (abort) is applied, on channel "timeout".

    The question may open and expire before any call here sees it (that is the point), so the test
    only waits for the end."""
    async with fake_llm() as llm:
        config = priced(llm.url, timeout_s=1.0, default_decision="abort")
        async with connect("inproc", "legacy", data_dir, config=config) as client:
            cid = (await call(client, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
            with anyio.fail_after(60):
                final = await call(client, "campaign_wait", {"campaign_id": cid, "until": "complete", "timeout_s": 50})
            assert final["phase"] == "cancelled"
            status = await call(client, "campaign_status", {"campaign_id": cid})
            assert status["decisions"][0]["channel"] == "timeout" and status["decisions"][0]["decision"] == "abort"
            assert_spend_within_budget(status)


async def test_decisions_keep_the_newest_50_and_count_the_rest_across_a_restart(data_dir: Path) -> None:
    """A client answering budget questions in a loop cannot grow a campaign's record without bound."""
    from mcp.server.subscriptions import InMemorySubscriptionBus

    from deepr_mcp.jobs.feed import CampaignFeed
    from deepr_mcp.jobs.manager import JobManager
    from deepr_mcp.jobs.store import SqliteCampaignStore
    from tests.doubles import FakeEngine

    store = SqliteCampaignStore(data_dir / "campaigns.db")
    feed = CampaignFeed(store, InMemorySubscriptionBus())
    try:
        async with JobManager(store, feed, lambda _: FakeEngine(step_cost=0.01)) as manager:
            campaign = await manager.start(QUESTION, budget=0.005, provider="local", model="fake")
            for n in range(1, 61):
                with anyio.fail_after(30):
                    async with aclosing(feed.follow(campaign.id)) as changes:
                        async for now in changes:
                            if now.open_question is not None and now.open_question.id == f"{campaign.id}-q{n}":
                                break
                decision = "abort" if n == 60 else "optimize_for_cost"
                await manager.decide(campaign.id, decision, channel="test", answered_by=f"answer {n}")
            with anyio.fail_after(30):
                assert [c async for c in feed.follow(campaign.id)][-1].terminal
    finally:
        feed.close()
        store.close()
    async with connect("inproc", "legacy", data_dir) as client:  # a restart: a new server on the same data
        for tool in ("budget_get", "campaign_status"):
            shown = await call(client, tool, {"campaign_id": campaign.id})
            assert len(shown["decisions"]) == 50 and shown["older_decisions"] == 10, tool
            assert [d["answered_by"] for d in shown["decisions"]] == [f"answer {n}" for n in range(11, 61)]


async def test_a_decision_is_in_the_record_when_decide_answers(data_dir: Path) -> None:
    """Read-your-writes: the task waiting on the question writes the decision, and ``decide`` answers only
    after it, so a status read right after an approval shows it (a read used to race the task's save)."""
    from mcp.server.subscriptions import InMemorySubscriptionBus

    from deepr_mcp.jobs.feed import CampaignFeed
    from deepr_mcp.jobs.manager import JobManager
    from deepr_mcp.jobs.store import SqliteCampaignStore
    from tests.doubles import FakeEngine

    store = SqliteCampaignStore(data_dir / "campaigns.db")
    feed = CampaignFeed(store, InMemorySubscriptionBus())
    try:
        async with JobManager(store, feed, lambda _: FakeEngine(step_cost=0.01)) as manager:
            campaign = await manager.start(QUESTION, budget=0.005, provider="local", model="fake")
            with anyio.fail_after(30):
                async with aclosing(feed.follow(campaign.id)) as changes:
                    async for now in changes:
                        if now.open_question is not None:
                            break
            returned = await manager.decide(
                campaign.id, "approve_override", new_budget=1.0, channel="test", answered_by="at once"
            )
            stored = await store.get(campaign.id)
            for seen in (returned, stored):
                assert [(d.decision, d.answered_by) for d in seen.decisions] == [("approve_override", "at once")]
                assert seen.budget == 1.0 and seen.open_question is None
    finally:
        feed.close()
        store.close()
