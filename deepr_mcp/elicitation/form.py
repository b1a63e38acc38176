"""The budget question as a form, and the validation of the human's answer.

One schema for every channel (``elicitation/create``, ``InputRequiredResult``), so a
decision means the same thing however it arrived.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from deepr_mcp.jobs.models import BudgetQuestion, DecisionName

DECISIONS: tuple[DecisionName, ...] = ("approve_override", "optimize_for_cost", "abort")


@dataclass(frozen=True, slots=True)
class Answer:
    decision: DecisionName
    new_budget: float | None = None


def message(campaign_id: str, question: str, q: BudgetQuestion, problem: str | None = None) -> str:
    text = (
        f"Research campaign {campaign_id} ({question[:80]}) needs a budget decision: the next step may cost up to "
        f"${q.estimated_cost:.4f}; ${q.spent:.4f} of the ${q.budget:.4f} budget is spent. Approve a new budget "
        "(approve_override with new_budget), continue with a cheaper model and fewer sources (optimize_for_cost), "
        "or stop and keep a partial report (abort)."
    )
    return f"{problem} Please answer again. {text}" if problem else text


def schema(q: BudgetQuestion) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Decision",
                "enum": list(DECISIONS),
                "description": "approve_override, optimize_for_cost or abort",
            },
            "new_budget": {
                "type": "number",
                "title": "New budget (dollars)",
                "minimum": round(q.spent, 6),
                "description": f"Required for approve_override; must exceed the ${q.spent:.4f} already spent",
            },
        },
        "required": ["decision"],
    }


def validate(content: dict[str, Any] | None, q: BudgetQuestion) -> Answer | str:
    """The answer, or the problem with it in words the human can act on."""
    content = content or {}
    decision = content.get("decision")
    if decision not in DECISIONS:
        return f"'decision' must be one of {', '.join(DECISIONS)}."
    if decision != "approve_override":
        return Answer(decision)  # type: ignore[arg-type]
    raw = content.get("new_budget")
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        return "approve_override needs new_budget, a number of dollars."
    try:
        new_budget = float(raw)
    except ValueError:
        return f"new_budget {raw!r} is not a number of dollars."
    if new_budget <= q.spent:
        return f"new_budget ${new_budget:.4f} must exceed the ${q.spent:.4f} already spent."
    return Answer("approve_override", new_budget)
