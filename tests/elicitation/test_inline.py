"""The 2026-07-28 channel: an answer counts only from the principal the question was put to."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from deepr_mcp.elicitation.inline import input_required
from deepr_mcp.jobs.models import BudgetQuestion
from tests.doubles import new_campaign

QUESTION = BudgetQuestion(id="c1-q1", estimated_cost=0.5, spent=0.1, budget=0.2, step="plan")


class Recorded:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, campaign_id: str, decision: str, **kwargs: Any) -> None:
        self.calls.append({"campaign_id": campaign_id, "decision": decision, **kwargs})


def params(state: str | None = None, answer: types.ElicitResult | None = None) -> types.CallToolRequestParams:
    return types.CallToolRequestParams(
        name="campaign_status",
        arguments={"campaign_id": "c1"},
        request_state=state,
        input_responses={"budget": answer} if answer else None,
    )


async def read(campaign_id: str) -> Any:
    return new_campaign(id=campaign_id, open_question=QUESTION)


async def test_an_answer_is_recorded_with_the_principal_it_was_asked_of() -> None:
    record = Recorded()
    asked = await input_required(read, record, params(), principal="approver")
    assert asked is not None and asked.request_state is not None
    answer = types.ElicitResult(action="accept", content={"decision": "abort"})
    assert await input_required(read, record, params(asked.request_state, answer), principal="approver") is None
    assert record.calls == [
        {
            "campaign_id": "c1",
            "decision": "abort",
            "new_budget": None,
            "channel": "input_required",
            "answered_by": "2026-07-28 client retry",
            "principal": "approver",
        }
    ]


async def test_a_request_state_replayed_by_another_principal_is_not_an_answer() -> None:
    record = Recorded()
    asked = await input_required(read, record, params(), principal="approver")
    assert asked is not None
    answer = types.ElicitResult(action="accept", content={"decision": "abort"})
    for state in [asked.request_state, "c1-q1#1", "c1-q1", f"c1-q1#1#{'0' * 16}", "c1-q1#x#y#z"]:
        again = await input_required(read, record, params(state, answer), principal="mallory")
        assert isinstance(again, types.InputRequiredResult)  # asked afresh, nothing recorded
    assert record.calls == []
