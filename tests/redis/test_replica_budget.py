"""A budget question raised on the replica that runs a campaign is answered on another replica.

Two real ``serve --http --store redis://...`` processes on a priced (fake, loopback) provider:
agent A starts a campaign with a tiny budget on the runner; agent C, connected only to the other
replica, hears the question (``campaign_wait until=decision``), and two answers race there: the
record's compare-and-set lets exactly one win. The runner applies it; nothing is spent past the
budget in force.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from tests.campaigns import QUESTION, TINY_BUDGET, assert_spend_within_budget, pause, priced
from tests.clients import Human, accept, call, modern_client, text_of
from tests.fake_llm import fake_llm
from tests.redis.engine import RedisServer
from tests.samples import with_sample
from tests.servers import config_env, http_server


async def priced_replicas(stack: AsyncExitStack, tmp_path: Path, redis_server: RedisServer) -> tuple[str, str]:
    """Two ``serve --http`` replicas on one Redis, each with the sample and a priced loopback LLM: the
    runner (where campaigns are started) and the other; both stop with ``stack``."""
    llm = await stack.enter_async_context(fake_llm())
    env, store = config_env(priced(llm.url)), ("--store", redis_server.url)
    runner = await stack.enter_async_context(http_server(with_sample(tmp_path / "runner"), *store, **env))
    other = await stack.enter_async_context(http_server(with_sample(tmp_path / "other"), *store, **env))
    return runner, other


async def attempt(client: Client, arguments: dict[str, Any]) -> tuple[bool, str]:
    result = await client.call_tool("tool_call", {"name": "budget_decide", "arguments": arguments})
    return not result.is_error, text_of(result)


async def test_a_question_raised_on_one_replica_is_answered_on_another(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    async with AsyncExitStack() as stack:
        runner, other = await priced_replicas(stack, tmp_path, redis_server)
        a = await stack.enter_async_context(Client(f"{runner}/mcp", mode="legacy"))
        c = await stack.enter_async_context(Client(f"{other}/mcp", mode="legacy"))
        c2 = await stack.enter_async_context(Client(f"{other}/mcp", mode="legacy"))
        cid = (await call(a, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]

        pending = await call(c, "campaign_wait", {"campaign_id": cid, "until": "decision", "timeout_s": 30})
        assert pending["decision_pending"] and pending["next"]["tool"] == "budget_decide", pending
        status = await call(c, "campaign_status", {"campaign_id": cid})
        assert status["phase"] == "awaiting_approval" and status["budget_question"]["answer"] is None
        assert_spend_within_budget(status)

        ok, why = await attempt(c, {"campaign_id": cid, "decision": "approve_override", "new_budget": 1e-7})
        assert not ok and "must exceed" in why  # checked on the answering replica, nothing written

        outcomes: dict[str, tuple[bool, str]] = {}

        async def answer(client: Client, arguments: dict[str, Any]) -> None:
            outcomes[arguments["decision"]] = await attempt(client, {"campaign_id": cid, **arguments})

        async with anyio.create_task_group() as tg:  # two answers race on the replica that does not run it
            tg.start_soon(answer, c, {"decision": "approve_override", "new_budget": 1.0})
            tg.start_soon(answer, c2, {"decision": "abort"})
        assert sorted(ok for ok, _ in outcomes.values()) == [False, True], outcomes
        won = next(name for name, (ok, _) in outcomes.items() if ok)
        lost = next(why for ok, why in outcomes.values() if not ok)
        assert "no open budget question" in lost or "kept changing" in lost, lost

        with anyio.fail_after(60):
            final = await call(c, "campaign_wait", {"campaign_id": cid, "until": "complete", "timeout_s": 50})
        status = await call(c, "campaign_status", {"campaign_id": cid})
        assert_spend_within_budget(status)
        decision = status["decisions"][0]
        assert decision["channel"] == "budget_decide" and decision["decision"] == won
        assert len(status["decisions"]) == 1
        if decision["decision"] == "approve_override":
            assert final["phase"] == "complete" and status["cost"] > TINY_BUDGET
        else:
            assert decision["decision"] == "abort" and final["phase"] == "cancelled"
            assert status["cost"] <= TINY_BUDGET
        seen_by_runner = await call(a, "campaign_status", {"campaign_id": cid})
        assert seen_by_runner["decisions"] == status["decisions"]


async def test_a_2026_client_on_another_replica_answers_inline(tmp_path: Path, redis_server: RedisServer) -> None:
    """The 2026-07-28 channel: C's own call on the other replica comes back input-required; its retry answers."""
    human = Human(accept(decision="approve_override", new_budget=1.0))
    async with AsyncExitStack() as stack:
        runner, other = await priced_replicas(stack, tmp_path, redis_server)
        a = await stack.enter_async_context(Client(f"{runner}/mcp", mode="legacy"))
        c = await stack.enter_async_context(Client(f"{other}/mcp", mode="auto", elicitation_callback=human))
        cid = (await call(a, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
        with anyio.fail_after(90):
            pending = await call(c, "campaign_wait", {"campaign_id": cid, "until": "decision", "timeout_s": 30})
            # Either the question opened during this wait (it answers decision_pending, nobody asked
            # yet), or it was already open when the call arrived: then the call itself came back
            # input-required and the SDK retried it with the answer. Which one depends on timing.
            assert pending["decision_pending"] or human.asked
            # a call touching the campaign with the question open comes back input-required; the SDK retries
            while (done := await call(c, "campaign_wait", {"campaign_id": cid, "until": "complete"}))["timed_out"]:
                pass
        assert human.asked and done["phase"] == "complete"
        status = await call(c, "campaign_status", {"campaign_id": cid})
        assert [d["decision"] for d in status["decisions"]] == ["approve_override"]
        assert status["cost"] > TINY_BUDGET
        assert_spend_within_budget(status)


async def test_a_2026_retry_may_land_on_another_replica(tmp_path: Path, redis_server: RedisServer) -> None:
    """``requestState`` names the question in the shared record, sealed under the replicas' shared key."""
    async with AsyncExitStack() as stack:
        runner, other = await priced_replicas(stack, tmp_path, redis_server)
        a = await stack.enter_async_context(Client(f"{runner}/mcp", mode="legacy"))
        cid = (await call(a, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
        await call(a, "campaign_wait", {"campaign_id": cid, "until": "decision", "timeout_s": 30})
        status = {"name": "tool_call", "arguments": {"name": "campaign_status", "arguments": {"campaign_id": cid}}}
        asked = await (await stack.enter_async_context(modern_client(other))).result("tools/call", status)
        assert asked["resultType"] == "input_required" and "budget" in asked["inputRequests"], asked
        answer = {"action": "accept", "content": {"decision": "approve_override", "new_budget": 1.0}}
        retry = {**status, "inputResponses": {"budget": answer}, "requestState": asked["requestState"]}
        sealed, middle = asked["requestState"], len(asked["requestState"]) // 2
        edited = sealed[:middle] + ("B" if sealed[middle] == "A" else "A") + sealed[middle + 1 :]
        forged = {**retry, "requestState": edited}
        refused = await (await stack.enter_async_context(modern_client(runner))).error("tools/call", forged)
        assert refused["code"] == -32602  # sealed: an edited state is refused on every replica
        done = await (await stack.enter_async_context(modern_client(runner))).result("tools/call", retry)
        assert done.get("resultType", "complete") == "complete" and not done.get("isError"), done
        with anyio.fail_after(60):
            final = await call(a, "campaign_wait", {"campaign_id": cid, "until": "complete", "timeout_s": 50})
        status_now = await call(a, "campaign_status", {"campaign_id": cid})
        assert final["phase"] == "complete"
        assert [(d["decision"], d["channel"]) for d in status_now["decisions"]] == [
            ("approve_override", "input_required")
        ]
        assert_spend_within_budget(status_now)


async def test_a_handshake_client_on_another_replica_is_asked_by_elicitation(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """B, subscribed on the replica that does not run the campaign, gets ``elicitation/create`` there."""
    human = Human(accept(decision="approve_override", new_budget=1.0))
    async with AsyncExitStack() as stack:
        runner, other = await priced_replicas(stack, tmp_path, redis_server)
        a = await stack.enter_async_context(Client(f"{runner}/mcp", mode="legacy"))  # cannot elicit
        b = await stack.enter_async_context(Client(f"{other}/mcp", mode="legacy", elicitation_callback=human))
        started = await call(a, "campaign_start", {"question": QUESTION, "budget": 1.0})
        cid = started["campaign_id"]
        await pause(a, cid)  # held while B subscribes on the other replica
        await b.subscribe_resource(started["resources"]["status"])
        spent = (await call(a, "campaign_status", {"campaign_id": cid}))["cost"]
        await call(a, "budget_set", {"campaign_id": cid, "budget": spent + 0.00001})  # the next step asks
        await call(a, "campaign_resume", {"campaign_id": cid})
        with anyio.fail_after(90):
            while (done := await call(a, "campaign_wait", {"campaign_id": cid, "until": "complete"}))["timed_out"]:
                pass
        status = await call(a, "campaign_status", {"campaign_id": cid})
        assert human.asked and done["phase"] == "complete", (human.asked, done)
        assert [(d["decision"], d["channel"]) for d in status["decisions"]] == [("approve_override", "elicitation")]
        assert_spend_within_budget(status)


async def test_a_client_subscribing_on_another_replica_after_the_question_is_asked_at_once(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """The question was raised on the runner; capable clients that subscribe on the other replica later are
    asked when they subscribe, each once: B's channel fails (asked once, not again when it re-subscribes),
    then C subscribes and answers. Nothing changes on the campaign meanwhile, so no change could trigger it."""
    failed: list[Any] = []
    asked_b = anyio.Event()

    async def broken(context: Any, params: Any) -> types.ErrorData:
        failed.append(params)
        asked_b.set()
        return types.ErrorData(code=-32603, message="this client's dialog is broken")

    human = Human(accept(decision="approve_override", new_budget=1.0))
    async with AsyncExitStack() as stack:
        runner, other = await priced_replicas(stack, tmp_path, redis_server)
        a = await stack.enter_async_context(Client(f"{runner}/mcp", mode="legacy"))  # cannot elicit
        started = await call(a, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET})
        cid, uri = started["campaign_id"], started["resources"]["status"]
        pending = await call(a, "campaign_wait", {"campaign_id": cid, "until": "decision", "timeout_s": 30})
        assert pending["decision_pending"], pending
        b = await stack.enter_async_context(Client(f"{other}/mcp", mode="legacy", elicitation_callback=broken))
        await b.subscribe_resource(uri)
        with anyio.fail_after(30):
            await asked_b.wait()
        await b.subscribe_resource(uri)  # again: B was put this question already
        c = await stack.enter_async_context(Client(f"{other}/mcp", mode="legacy", elicitation_callback=human))
        await c.subscribe_resource(uri)
        with anyio.fail_after(60):
            while (done := await call(a, "campaign_wait", {"campaign_id": cid, "until": "complete"}))["timed_out"]:
                pass
        status = await call(a, "campaign_status", {"campaign_id": cid})
    assert done["phase"] == "complete" and len(human.asked) == 1 and len(failed) == 1, (done, failed)
    assert [(d["decision"], d["channel"]) for d in status["decisions"]] == [("approve_override", "elicitation")]
    assert_spend_within_budget(status)
