"""Resuming campaigns whose runner stopped: after a restart, or on another replica after a death.

``recover`` puts an unfinished campaign back in the queue from its last saved step (a step that
was in flight when its runner stopped is run again: its result was never saved). It runs while
the caller holds the campaign's lease, so it never rewrites a campaign another runner still
drives. One process (embedded lease) recovers everything it finds at start. Replicas sharing a
store instead run ``adopt_orphans``: every third of the lease time each one looks for unfinished
campaigns nobody holds a lease on, claims them (``SET NX``: one replica wins) and resumes them,
so a campaign whose replica died (no heartbeat) runs again within about the lease time. A
campaign saved less than ``lease_s`` ago is left alone: it was just created, and its own
replica is about to take the lease (a dead runner's record is always older than its lease).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

import anyio

from deepr_mcp.errors import DeeprError
from deepr_mcp.jobs.ending import CampaignEnding
from deepr_mcp.jobs.models import RUNNING_PHASES, Campaign, CampaignPhase, utcnow
from deepr_mcp.jobs.store import CampaignStore

logger = logging.getLogger(__name__)


@runtime_checkable
class ClaimingLease(Protocol):
    """A lease several replicas share (``redis/lease.py``): claimable without waiting, and losable."""

    lease_s: float

    async def claim(self, campaign_id: str) -> bool: ...

    def lost(self, campaign_id: str) -> bool: ...


async def recover(
    campaign: Campaign, ending: CampaignEnding, save: Callable[[Campaign], Awaitable[Campaign]], max_resumes: int
) -> bool:
    """Queue ``campaign`` again from its last saved step; False if it should not run (paused, set aside)."""
    if campaign.terminal or campaign.phase == CampaignPhase.PAUSED:
        return False
    if campaign.requested == "cancel":  # asked while nobody ran it
        await ending.finish(campaign, CampaignPhase.CANCELLED, "cancelled", engine_partial=True)
        return False
    if campaign.requested == "pause":
        campaign.paused_from, campaign.phase, campaign.active_tasks = campaign.phase, CampaignPhase.PAUSED, []
        await save(campaign)
        return False
    if campaign.resumes_without_progress >= max_resumes:
        # each restart resumed it and its runner died before its next step: set aside
        await ending.fail_contained(campaign.id, f"stopped after {max_resumes} failed resumes")
        return False
    if campaign.phase in RUNNING_PHASES:
        campaign.resumes_without_progress += 1  # it was mid-step when its runner stopped
    if campaign.phase in RUNNING_PHASES or campaign.phase == CampaignPhase.AWAITING_APPROVAL:
        campaign.phase = CampaignPhase.QUEUED
        campaign.active_tasks = ["resuming after a restart"]
        campaign.open_question = None
        await save(campaign)
    return True


async def adopt_orphans(
    store: CampaignStore,
    lease: ClaimingLease,
    here: Callable[[str], bool],
    adopt: Callable[[str], None],
    *,
    every_s: float | None = None,
) -> None:
    """Forever: claim unfinished campaigns no replica holds, and hand them to ``adopt`` (the job manager)."""
    while True:
        try:
            for campaign in await store.unfinished():
                if campaign.phase == CampaignPhase.PAUSED or here(campaign.id):
                    continue
                if (utcnow() - campaign.updated_at).total_seconds() < lease.lease_s:
                    continue
                if await lease.claim(campaign.id):
                    logger.warning("taking over campaign %s (its runner's lease expired)", campaign.id)
                    adopt(campaign.id)
        except DeeprError as exc:  # the store is down: look again next round
            logger.warning("takeover scan: %s", exc.message)
        await anyio.sleep(every_s or lease.lease_s / 3)
