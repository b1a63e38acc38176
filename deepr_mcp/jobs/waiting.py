"""``campaign_wait``: the pull twin of the status subscription.

It sleeps on the Notifier's change feed (the same one that drives ``resources/updated``),
never on a timer over the store, so an idle waiter costs no CPU and a thousand waiters all
wake on the next change. While it waits it reports progress at least every 10 s, which also
keeps clients with a 60 s request timeout from giving up.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

import anyio

from deepr_mcp.errors import InvalidInput
from deepr_mcp.jobs import views
from deepr_mcp.jobs.models import Campaign, CampaignPhase
from deepr_mcp.jobs.notifier import Notifier
from deepr_mcp.jobs.store import CampaignStore

Until = Literal["change", "phase", "complete", "decision"]
ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]
HEARTBEAT_S = 10.0


def satisfied(until: Until, baseline: Campaign, now: Campaign, since: int) -> bool:
    """Whether ``now`` answers the wait; a finished campaign always does (nothing more will happen)."""
    if now.terminal:
        return True
    if until == "decision":
        return now.open_question is not None
    if until == "phase":
        return now.phase != baseline.phase
    if until == "change":
        return now.version > since
    return False  # "complete": only a terminal phase answers


def answer(campaign: Campaign, before: Campaign | None, waited_s: float, timed_out: bool) -> dict[str, Any]:
    changed: list[str] = []
    if before is not None:
        if before.phase != campaign.phase:
            changed.append(f"phase {before.phase.value} -> {campaign.phase.value}")
        if before.open_question is None and campaign.open_question is not None:
            changed.append("budget decision pending")
    if campaign.open_question is not None:
        next_call = views.decide_call(campaign)
    elif campaign.phase == CampaignPhase.COMPLETE or (campaign.terminal and campaign.research.report):
        next_call = {"tool": "campaign_report", "arguments": {"campaign_id": campaign.id}}
    elif campaign.terminal:
        next_call = {"tool": "campaign_status", "arguments": {"campaign_id": campaign.id}}
    else:
        next_call = {"tool": "campaign_wait", "arguments": {"campaign_id": campaign.id, "since": campaign.version}}
    # Compact on purpose: a model following a campaign reads this on every wake-up.
    answer: dict[str, Any] = {
        "phase": campaign.phase.value,
        "progress": round(campaign.progress, 2),
        "cost": round(campaign.cost, 4),
        "budget": round(campaign.budget, 4),
        "version": campaign.version,
        "changed": changed or ([] if timed_out else ["progress"]),
        "timed_out": timed_out,
        "decision_pending": campaign.open_question is not None,
        "next": next_call,
        "waited_s": round(waited_s, 1),
    }
    if campaign.active_tasks:
        answer["active"] = campaign.active_tasks[0][:80]
    return answer


async def wait_for_campaign(
    store: CampaignStore,
    notifier: Notifier,
    campaign_id: str,
    *,
    until: Until = "change",
    since: int | None = None,
    timeout_s: float = 45.0,
    progress: ProgressFn | None = None,
) -> dict[str, Any]:
    start = anyio.current_time()
    baseline = await store.get(campaign_id)  # NotFound for unknown ids, before any waiting
    if since is not None and since > baseline.version:
        raise InvalidInput(
            f"since={since} is newer than the campaign's version {baseline.version}; pass the version a "
            "previous answer returned, or omit since"
        )
    effective_since = baseline.version if since is None else since
    current = baseline
    deadline = start + timeout_s
    while not satisfied(until, baseline, current, effective_since):
        remaining = deadline - anyio.current_time()
        if remaining <= 0:
            return answer(current, baseline, anyio.current_time() - start, timed_out=True)
        await notifier.wait_changed(campaign_id, min(remaining, HEARTBEAT_S))
        current = await store.get(campaign_id)
        if progress is not None:
            await progress(current.progress, 1.0, f"{current.phase.value}: {', '.join(current.active_tasks[:1])}")
    return answer(current, baseline, anyio.current_time() - start, timed_out=False)
