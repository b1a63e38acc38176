"""``campaign_wait``: the pull twin of the status subscription.

It follows the campaign feed (the same announcements that drive ``resources/updated``),
never a timer over the store, so an idle waiter costs no CPU and a thousand waiters all
wake on the next change. While it waits it reports progress at least every 10 s, which also
keeps clients with a 60 s request timeout from giving up.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import Any

import anyio

from deepr_mcp.jobs import views
from deepr_mcp.jobs.feed import CampaignFeed, Until, satisfied
from deepr_mcp.jobs.models import Campaign, CampaignPhase

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]
HEARTBEAT_S = 10.0


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
    feed: CampaignFeed,
    campaign_id: str,
    *,
    until: Until = "change",
    since: int | None = None,
    timeout_s: float = 45.0,
    progress: ProgressFn | None = None,
) -> dict[str, Any]:
    start = anyio.current_time()
    async with aclosing(feed.follow(campaign_id, until, since=since, heartbeat_s=HEARTBEAT_S)) as updates:
        baseline = current = await anext(updates)  # NotFound / a bad since, before any waiting
        effective_since = baseline.version if since is None else since
        with anyio.move_on_after(max(0.0, start + timeout_s - anyio.current_time())):
            async for current in updates:
                if progress is not None:
                    await progress(
                        current.progress, 1.0, f"{current.phase.value}: {', '.join(current.active_tasks[:1])}"
                    )
    timed_out = not satisfied(until, baseline, current, effective_since)
    return answer(current, baseline, anyio.current_time() - start, timed_out=timed_out)
