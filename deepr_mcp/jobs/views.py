"""What a campaign looks like from outside: the bodies of its resources and tool answers.

One function per view, shared by the resources and the tools, so ``campaign_status`` and a
read of ``deepr://campaigns/{id}/status`` can never disagree.
"""

from __future__ import annotations

from typing import Any

from deepr_mcp.jobs.models import Campaign
from deepr_mcp.research.engine import beliefs_and_gaps


def decide_call(campaign: Campaign) -> dict[str, Any] | None:
    """The exact ``budget_decide`` call that settles the open question, for clients without elicitation."""
    q = campaign.open_question
    if q is None:
        return None
    return {
        "tool": "budget_decide",
        "arguments": {
            "campaign_id": campaign.id,
            "decision": "approve_override",
            "new_budget": round(max(q.budget, q.spent) + q.estimated_cost * 2 + 0.01, 2),
        },
        "alternatives": ["optimize_for_cost", "abort"],
    }


def status_view(campaign: Campaign, subscriber_count: int = 0) -> dict[str, Any]:
    """What changes while a campaign runs; static facts (question, URIs) live in campaign_list/plan.

    Kept small because pushed-update clients re-read it on every change.
    """
    research = campaign.research
    remaining = len(research.sub_questions) + 2 - len(research.steps_done) if research.sub_questions else None
    view: dict[str, Any] = {
        "id": campaign.id,
        "phase": campaign.phase.value,
        "progress": round(campaign.progress, 4),
        "active_tasks": campaign.active_tasks,
        "cost": round(campaign.cost, 6),
        "budget": round(campaign.budget, 6),
        "estimated_remaining_steps": remaining,
        "version": campaign.version,
        "subscriber_count": subscriber_count,
        "updated_at": campaign.updated_at.isoformat(),
        "finished_at": campaign.finished_at.isoformat() if campaign.finished_at else None,
        "budget_question": campaign.open_question.model_dump(mode="json") if campaign.open_question else None,
        "decisions": [d.model_dump(mode="json") for d in campaign.decisions],
        "older_decisions": campaign.older_decisions,
    }
    if campaign.cost_mode != "normal":
        view["cost_mode"] = campaign.cost_mode
    if campaign.error:
        view["error"] = campaign.error
    if campaign.open_question is not None:
        view["settle_with"] = decide_call(campaign)
    return view


def plan_view(campaign: Campaign) -> dict[str, Any]:
    return {
        "id": campaign.id,
        "question": campaign.question,
        "phase": campaign.phase.value,
        "sub_questions": [
            {"id": sq.id, "text": sq.text, "status": sq.status, "findings": len(sq.findings), "evidence": sq.evidence}
            for sq in campaign.research.sub_questions
        ],
    }


def beliefs_view(campaign: Campaign) -> dict[str, Any]:
    research = campaign.research
    beliefs, gaps = (research.beliefs, research.gaps) if research.report else beliefs_and_gaps(research)
    return {
        "id": campaign.id,
        "phase": campaign.phase.value,
        "beliefs": [b.model_dump(mode="json") for b in beliefs],
        "gaps": [g.model_dump(mode="json") for g in gaps],
        "sources": sources_view(campaign)["sources"],
    }


def sources_view(campaign: Campaign) -> dict[str, Any]:
    return {
        "id": campaign.id,
        "sources": [
            c.model_dump(mode="json") for c in sorted(campaign.research.passages.values(), key=lambda c: c.number)
        ],
    }


def report_text(campaign: Campaign) -> str:
    if campaign.research.report:
        return campaign.research.report
    return (
        f"# Research report: {campaign.question}\n\n_Not written yet: the campaign is {campaign.phase.value} "
        f"({campaign.progress:.0%}). Subscribe to deepr://campaigns/{campaign.id}/status or call campaign_wait._\n"
    )
