"""ElicitationHandler through its ports: who is connected, who subscribes; it returns the decision."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types

from deepr_mcp.elicitation.handler import ElicitationHandler
from deepr_mcp.jobs.models import BudgetQuestion
from tests.doubles import new_campaign

QUESTION = BudgetQuestion(id="c-q1", estimated_cost=0.5, spent=0.1, budget=0.2, step="plan")


class FakeConnection:
    def __init__(self, *answers: Any, can_elicit: bool = True) -> None:
        self.answers = list(answers)
        self.can_elicit = can_elicit
        self.asked: list[types.ElicitRequest] = []

    def check_capability(self, capability: types.ClientCapabilities) -> bool:
        return self.can_elicit

    async def send_request(self, request: types.ElicitRequest) -> Any:
        self.asked.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        if answer == "hang":
            await anyio.sleep_forever()
        return answer


def accept(**content: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=content)


def handler(connections: dict[str, FakeConnection], subscribers: list[str], timeout_s: float = 5) -> ElicitationHandler:
    return ElicitationHandler(connections.get, lambda uri: subscribers, timeout_s=timeout_s)  # type: ignore[arg-type]


async def test_the_starting_connection_is_asked_first_and_its_answer_returned() -> None:
    owner, other = FakeConnection(accept(decision="approve_override", new_budget=1.5)), FakeConnection()
    campaign = new_campaign(owner_connection="owner")
    decision = await handler({"owner": owner, "other": other}, ["other"]).ask(campaign, QUESTION)
    assert decision is not None
    assert (decision.decision, decision.new_budget, decision.channel) == ("approve_override", 1.5, "elicitation")
    assert decision.answered_by == "connection owner"
    assert len(owner.asked) == 1 and not other.asked


async def test_a_gone_or_incapable_owner_passes_the_question_to_a_subscriber() -> None:
    mute, subscriber = FakeConnection(can_elicit=False), FakeConnection(accept(decision="optimize_for_cost"))
    campaign = new_campaign(owner_connection="mute")
    found = handler({"mute": mute, "sub": subscriber}, ["sub", "gone"])
    assert found.candidates(campaign) == ["sub"]
    decision = await found.ask(campaign, QUESTION)
    assert decision is not None and decision.decision == "optimize_for_cost" and not mute.asked


async def test_an_invalid_answer_is_asked_again_once_then_counts_as_abort() -> None:
    owner = FakeConnection(accept(decision="approve_override"), accept(decision="maybe"))
    decision = await handler({"owner": owner}, []).ask(new_campaign(owner_connection="owner"), QUESTION)
    assert decision is not None and decision.decision == "abort" and len(owner.asked) == 2
    assert "new_budget" in owner.asked[1].params.message  # the second ask says what was wrong


async def test_decline_is_abort_and_a_failed_channel_falls_through_to_the_next() -> None:
    broken, decliner = FakeConnection(anyio.BrokenResourceError()), FakeConnection(types.ElicitResult(action="decline"))
    decision = await handler({"a": broken, "b": decliner}, ["a", "b"]).ask(new_campaign(), QUESTION)
    assert decision is not None and (decision.decision, decision.answered_by) == ("abort", "connection b")


async def test_nobody_to_ask_or_nobody_answering_in_time_returns_none() -> None:
    assert await handler({}, []).ask(new_campaign(), QUESTION) is None
    slow = FakeConnection("hang")
    assert await handler({"s": slow}, ["s"], timeout_s=0.05).ask(new_campaign(), QUESTION) is None


class Who:
    """The registry's ``principal_of`` port: the principal that opened each connection."""

    def __init__(self, **scopes: list[str]) -> None:
        from deepr_mcp.auth.principals import Principal

        self.principals = {cid: Principal(name=cid, scopes=frozenset(s)) for cid, s in scopes.items()}

    def __call__(self, cid: str) -> Any:
        return self.principals.get(cid)


async def test_only_a_connection_that_may_approve_and_see_the_campaign_is_asked() -> None:
    answer = accept(decision="approve_override", new_budget=1.5)
    conns = {name: FakeConnection(answer) for name in ["starter", "reader", "stranger", "approver"]}
    who = Who(starter=["read", "research"], reader=["read"], stranger=["read", "approve"], approver=["read", "approve"])
    campaign = new_campaign(owner_connection="starter", owner="starter", shared_with=["reader", "approver"])
    found = ElicitationHandler(conns.get, lambda uri: ["reader", "stranger", "approver"], timeout_s=5, principal_of=who)  # type: ignore[arg-type]
    assert found.candidates(campaign) == ["approver"]
    decision = await found.ask(campaign, QUESTION)
    assert decision is not None and decision.principal == "approver"
    assert decision.answered_by == "connection approver"
    assert [name for name, c in conns.items() if c.asked] == ["approver"]


async def test_an_unknown_connection_principal_is_never_asked() -> None:
    conns = {"ghost": FakeConnection(accept(decision="abort"))}
    found = ElicitationHandler(conns.get, lambda uri: ["ghost"], timeout_s=5, principal_of=Who())  # type: ignore[arg-type]
    assert await found.ask(new_campaign(), QUESTION) is None and not conns["ghost"].asked


async def test_a_connection_already_put_the_question_is_skipped_and_each_asked_is_noted() -> None:
    broken, late = FakeConnection(anyio.BrokenResourceError()), FakeConnection(accept(decision="abort"))
    found = handler({"a": broken, "b": late}, ["a", "b"])
    asked: set[str] = set()
    campaign = new_campaign()
    found.audience.subscribers_of = lambda uri: ["a"]  # only "a" subscribes yet: its channel fails
    assert await found.ask(campaign, QUESTION, asked) is None and asked == {"a"}
    found.audience.subscribers_of = lambda uri: ["a", "b"]  # "b" subscribes later: asked, "a" not again
    decision = await found.ask(campaign, QUESTION, asked)
    assert decision is not None and decision.answered_by == "connection b"
    assert len(broken.asked) == 1 and len(late.asked) == 1 and asked == {"a", "b"}
