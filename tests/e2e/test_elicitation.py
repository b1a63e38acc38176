"""Budget questions on every channel a client offers: elicitation/create (handshake clients),
InputRequiredResult (2026-07-28 clients), another subscriber when the starter is gone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from tests.campaigns import QUESTION, TINY_BUDGET, assert_spend_within_budget, finish, priced
from tests.clients import Human, accept, call, connect
from tests.fake_llm import fake_llm
from tests.servers import config_env, http_server


@pytest.mark.parametrize(
    ("answers", "phase", "decision"),
    [
        ([accept(decision="approve_override", new_budget=1.0)], "complete", "approve_override"),
        ([accept(decision="optimize_for_cost")], "complete", "optimize_for_cost"),  # the cheaper model fits
        ([accept(decision="abort")], "cancelled", "abort"),
        ([types.ElicitResult(action="decline")], "cancelled", "abort"),
        ([types.ElicitResult(action="cancel")], "cancelled", "abort"),
        (
            [
                accept(decision="approve_override", new_budget=0.0000001),
                accept(decision="approve_override", new_budget=1.0),
            ],
            "complete",
            "approve_override",
        ),
        ([accept(decision="approve_override")], "cancelled", "abort"),  # invalid twice: a decline
    ],
)
async def test_handshake_client_answers_through_elicitation(
    answers: list[types.ElicitResult], phase: str, decision: str, data_dir: Path
) -> None:
    human = Human(*answers)
    async with (
        fake_llm() as llm,
        connect("inproc", "legacy", data_dir, config=priced(llm.url), elicitation_callback=human) as client,
    ):
        cid = (await call(client, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
        status = await finish(client, cid)
        assert status["phase"] == phase
        first = status["decisions"][0]
        assert (first["decision"], first["channel"]) == (decision, "elicitation")
        assert first["answered_by"].startswith("connection ")
        assert_spend_within_budget(status)
        asked = human.asked[0]
        assert "needs a budget decision" in asked.message and "$" in asked.message
        assert asked.requested_schema["properties"]["decision"]["enum"] == [
            "approve_override",
            "optimize_for_cost",
            "abort",
        ]
        if "new_budget=0.0000001" in repr(answers[0]) or answers[0].content == {"decision": "approve_override"}:
            assert "Please answer again" in human.asked[1].message


async def test_modern_client_answers_through_input_required(data_dir: Path) -> None:
    human = Human(accept(decision="approve_override", new_budget=1.0))
    async with (
        fake_llm() as llm,
        connect("inproc", "modern", data_dir, config=priced(llm.url), elicitation_callback=human) as client,
    ):
        assert client.protocol_version == "2026-07-28"
        cid = (await call(client, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
        # The next call that touches the campaign carries the question; the SDK client answers
        # through its elicitation callback and retries with the answer.
        status = await call(client, "campaign_status", {"campaign_id": cid})
        status = await finish(client, cid)
        assert status["phase"] == "complete" and human.asked
        assert status["decisions"][0]["channel"] == "input_required"
        assert_spend_within_budget(status)


async def test_asked_on_another_subscriber_when_the_starter_is_gone(data_dir: Path) -> None:
    human = Human(accept(decision="approve_override", new_budget=1.0))
    async with fake_llm() as llm:
        env = config_env({**priced(llm.url), "jobs": {"step_delay_s": 0.5}})
        async with http_server(data_dir, **env) as base:
            async with Client(f"{base}/mcp", mode="legacy") as starter:  # declares no elicitation
                started = await call(starter, "campaign_start", {"question": QUESTION, "budget": 0.005})
            cid, uri = started["campaign_id"], started["resources"]["status"]
            async with Client(f"{base}/mcp", mode="legacy", elicitation_callback=human) as other:
                await other.subscribe_resource(uri)
                status = await finish(other, cid)
                assert status["phase"] == "complete" and human.asked
                decision = status["decisions"][0]
                assert (decision["decision"], decision["channel"]) == ("approve_override", "elicitation")
                assert_spend_within_budget(status)


class HeldHuman(Human):
    """Answers only once released, so the test can act while the question is on its screen."""

    def __init__(self, *answers: types.ElicitResult) -> None:
        super().__init__(*answers)
        self.release, self.on_screen = anyio.Event(), anyio.Event()

    async def __call__(self, context: Any, params: Any) -> types.ElicitResult:
        self.asked.append(params)
        self.on_screen.set()
        await self.release.wait()
        return self.answers[0]


async def test_a_subscriber_arriving_after_the_question_is_asked_when_it_subscribes(data_dir: Path) -> None:
    """The question was raised with nobody to ask; a capable client subscribing later is asked then, once."""
    first = HeldHuman(accept(decision="approve_override", new_budget=1.0))
    second = Human(accept(decision="abort"))
    async with fake_llm() as llm, http_server(data_dir, **config_env(priced(llm.url))) as base:
        async with (
            Client(f"{base}/mcp", mode="legacy") as starter,  # declares no elicitation
            Client(f"{base}/mcp", mode="legacy", elicitation_callback=first) as b,
            Client(f"{base}/mcp", mode="legacy", elicitation_callback=second) as c,
        ):
            started = await call(starter, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET})
            cid, uri = started["campaign_id"], started["resources"]["status"]
            pending = await call(starter, "campaign_wait", {"campaign_id": cid, "until": "decision", "timeout_s": 20})
            assert pending["decision_pending"], pending  # raised while nobody could be asked
            await b.subscribe_resource(uri)
            with anyio.fail_after(30):
                await first.on_screen.wait()  # asked now, not at the campaign's next change (there is none)
            await c.subscribe_resource(uri)  # while B is being asked: C waits its turn, as if it had been there
            await b.subscribe_resource(uri)  # subscribing again asks nobody twice
            first.release.set()
            status = await finish(starter, cid)
    assert status["phase"] == "complete" and len(first.asked) == 1 and not second.asked
    assert [(d["decision"], d["channel"]) for d in status["decisions"]] == [("approve_override", "elicitation")]
    assert_spend_within_budget(status)
