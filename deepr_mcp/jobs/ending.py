"""How a campaign ends (complete, cancelled, failed), and why a failure never leaves its campaign.

Ending runs more code than any step: the partial report, its sandbox copy, the experts hook and
the final save. Each can fail on its own (a full sandbox, a path an agent blocked, a broken
store), so each is guarded here; what reaches the job manager's task group is never an
exception, because one there would end every campaign and the server with them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from deepr_mcp.errors import DeeprError
from deepr_mcp.jobs.models import Campaign, CampaignPhase, utcnow
from deepr_mcp.jobs.store import CampaignStore
from deepr_mcp.research.artifacts import copy_to_sandbox
from deepr_mcp.research.engine import partial_report

logger = logging.getLogger(__name__)


class CampaignEnding:
    def __init__(
        self,
        store: CampaignStore,
        save: Callable[[Campaign], Awaitable[Campaign]],
        engine_factory: Callable[[Campaign], Any],
        on_finished: Callable[[Campaign], Awaitable[None]] | None = None,
    ) -> None:
        self.store = store
        self.save = save
        self.engine_factory = engine_factory
        self.on_finished = on_finished

    async def finish(
        self, campaign: Campaign, phase: CampaignPhase, reason: str | None, *, engine_partial: bool = False
    ) -> Campaign:
        campaign.phase = phase
        campaign.active_tasks = []
        campaign.finished_at = utcnow()
        if phase == CampaignPhase.COMPLETE:
            campaign.progress = 1.0
        elif campaign.research.report is None and (engine_partial or campaign.research.sub_questions):
            done = sum(1 for s in campaign.research.steps_done if s.startswith("gather:"))
            note = f"{reason}: {done} of {len(campaign.research.sub_questions)} sub-questions were researched."
            campaign.research.report = partial_report(campaign.research, note)
            self._copy_to_sandbox(campaign)
        if reason and phase != CampaignPhase.COMPLETE:
            campaign.error = reason if phase == CampaignPhase.FAILED else campaign.error
        if self.on_finished is not None:
            # Before the final save is announced, so whoever sees the campaign finished also
            # sees what it fed (an expert's new beliefs).
            try:
                await self.on_finished(campaign)
            except Exception:  # a follower's failure must not undo the campaign
                logger.exception("on_finished hook failed for campaign %s", campaign.id)
        return await self.save(campaign)

    def _copy_to_sandbox(self, campaign: Campaign) -> None:
        """The record holds the report; the sandbox copy (the engine's, refusals logged) is a convenience."""
        try:
            engine = self.engine_factory(campaign)
        except (DeeprError, OSError) as exc:  # the sandbox itself could not be made
            logger.warning("campaign %s: no sandbox for the partial report: %s", campaign.id, exc)
            return
        copy_to_sandbox(engine.sink, "final_report.md", campaign.research.report or "")

    async def fail(self, campaign_id: str, message: str) -> None:
        campaign = await self.store.get(campaign_id)
        campaign.error = message
        await self.finish(campaign, CampaignPhase.FAILED, message, engine_partial=True)

    async def fail_contained(self, campaign_id: str, message: str) -> None:
        """Record a failure; if that fails too, save it failed without extras; never raise."""
        try:
            await self.fail(campaign_id, message)
            return
        except Exception:
            logger.exception("campaign %s: recording its failure failed; saving it failed without extras", campaign_id)
        try:
            campaign = await self.store.get(campaign_id)
            campaign.phase, campaign.active_tasks, campaign.error = CampaignPhase.FAILED, [], message
            campaign.finished_at = utcnow()
            await self.save(campaign)
        except Exception:
            logger.exception("campaign %s: could not be saved as failed", campaign_id)
