"""A campaign as a task, in the wire shape of each tasks era (one status table, one message).

2025-11-25 tasks (``types.Task``: ``ttl``, ``pollInterval``) and the 2026-07-28 extension
(SEP-2663: ``ttlMs``, ``pollIntervalMs``, with the report, the failure or the budget question
inlined by ``tasks/get``) read the same campaign record; only the names and what is inlined differ.
"""

from __future__ import annotations

from typing import Any, Literal

import mcp_types as types
from mcp_types import INTERNAL_ERROR

from deepr_mcp.elicitation import form
from deepr_mcp.elicitation.inline import INPUT_KEY
from deepr_mcp.jobs import views
from deepr_mcp.jobs.models import Campaign, CampaignPhase

Era = Literal["2025-11-25", "2026-07-28"]
RELATED_TASK = "io.modelcontextprotocol/related-task"
POLL_INTERVAL_MS = 2000

TASK_STATUS = {
    # a campaign phase as a task status, in both tasks eras (any other phase is "working")
    CampaignPhase.COMPLETE: "completed",
    CampaignPhase.FAILED: "failed",
    CampaignPhase.CANCELLED: "cancelled",
    CampaignPhase.AWAITING_APPROVAL: "input_required",
}

_ASK = {
    "2025-11-25": "budget decision needed: call budget_decide for campaign {id}",
    "2026-07-28": "budget decision needed: answer the inputRequests with tasks/update",
}


def task_fields(campaign: Campaign, era: Era) -> dict[str, Any]:
    """The ``Task`` members every answer of ``era`` carries, by their wire names."""
    message = campaign.active_tasks[0] if campaign.active_tasks else campaign.phase.value
    if campaign.open_question is not None:
        message = _ASK[era].format(id=campaign.id)
    modern = era == "2026-07-28"
    return {
        "taskId": campaign.id,
        "status": TASK_STATUS.get(campaign.phase, "working"),
        "statusMessage": f"{campaign.phase.value} {campaign.progress:.0%}: {message}",
        "createdAt": campaign.created_at.isoformat(),
        "lastUpdatedAt": campaign.updated_at.isoformat(),
        "ttlMs" if modern else "ttl": campaign.task_ttl_ms,
        "pollIntervalMs" if modern else "pollInterval": POLL_INTERVAL_MS,
    }


def task_of(campaign: Campaign) -> types.Task:
    """The 2025-11-25 ``Task``."""
    return types.Task.model_validate(task_fields(campaign, "2025-11-25"), by_name=False)


def final_result(campaign: Campaign, *, related: bool = True) -> types.CallToolResult:
    """What the task's tools/call finally returns: the report, with the status as structured content."""
    return types.CallToolResult(
        content=[types.TextContent(text=views.report_text(campaign))],
        structured_content=views.status_view(campaign),
        is_error=campaign.phase != CampaignPhase.COMPLETE,
        meta={RELATED_TASK: {"taskId": campaign.id}} if related else None,
    )


def detailed_task(campaign: Campaign, *, can_elicit: bool = True) -> dict[str, Any]:
    """2026-07-28 ``tasks/get``: the task, plus the report once complete, the reason once failed, or the question.

    A client that declared no elicitation is not handed an ``elicitation/create`` input request: its
    task stays ``working`` and the status message points at ``budget_decide`` (or the timeout's default).
    """
    task = task_fields(campaign, "2026-07-28")
    if campaign.open_question is not None and not can_elicit:
        task["status"], task["statusMessage"] = "working", _ASK["2025-11-25"].format(id=campaign.id)
        return task
    if campaign.phase == CampaignPhase.COMPLETE:
        task["result"] = final_result(campaign, related=False).model_dump(mode="json", by_alias=True, exclude_none=True)
    elif campaign.phase == CampaignPhase.FAILED:
        task["error"] = {"code": INTERNAL_ERROR, "message": f"campaign {campaign.id} failed: {campaign.error}"}
    elif campaign.open_question is not None:
        q = campaign.open_question
        request = types.ElicitRequest(
            params=types.ElicitRequestFormParams(
                message=form.message(campaign.id, campaign.question, q, None), requested_schema=form.schema(q)
            )
        )
        task["inputRequests"] = {INPUT_KEY: request.model_dump(mode="json", by_alias=True, exclude_none=True)}
    return task
