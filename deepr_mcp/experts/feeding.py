"""Feeding experts: a finished campaign run for an expert adds its beliefs and gaps to it."""

from __future__ import annotations

from deepr_mcp.errors import Conflict, NotFound
from deepr_mcp.experts.knowledge import absorb
from deepr_mcp.experts.store import ExpertStore
from deepr_mcp.jobs.feed import CampaignFeed
from deepr_mcp.jobs.models import Campaign

FEED_ATTEMPTS = 8
"""Feeds of one expert racing each other retry on the newer record; this many tries bounds a pathological race."""


class FeedExperts:
    """The job manager's ``on_finished`` hook.

    Called before the final save is announced, so whoever sees the campaign finished also sees
    what it fed (the expert's resources are announced here).
    """

    def __init__(self, experts: ExpertStore, feed: CampaignFeed) -> None:
        self.experts = experts
        self.feed = feed

    async def __call__(self, campaign: Campaign) -> None:
        if campaign.expert_id is None:
            return
        for attempt in range(1, FEED_ATTEMPTS + 1):
            try:
                expert = await self.experts.get(campaign.expert_id)
            except NotFound:
                return  # the expert was deleted while its campaign ran
            try:
                expert = await self.experts.save(absorb(expert, campaign), expected_version=expert.version)
                break
            except Conflict:  # another campaign (maybe on another replica) fed it meanwhile: absorb into theirs
                if attempt == FEED_ATTEMPTS:
                    raise
        await self.feed.announce_expert(expert.id)
