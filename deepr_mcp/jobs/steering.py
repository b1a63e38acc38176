"""Changing a campaign that may be running elsewhere: every write is a compare-and-set on its version.

Several writers touch one record: the task that runs it (one replica, under the lease) and the
commands of any replica (share, budget, pause, cancel, resume, a budget answer). ``write_through``
is how a command writes: read, change, save only if nobody saved meanwhile, else read again.
``carry`` is how the running task saves: what commands may have changed while its step ran
(who it is shared with, the budget, a requested pause or cancel, the version) is taken from the
stored record, the rest (the step's results) from the task; that save is a compare-and-set too.
So neither overwrites the other, and versions only grow (a follower's ``since`` never misses one).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from deepr_mcp.errors import Conflict
from deepr_mcp.jobs.lease import LeaseLost
from deepr_mcp.jobs.models import Campaign
from deepr_mcp.jobs.store import CampaignStore

CAS_ATTEMPTS = 8


def carry(stored: Campaign, mine: Campaign, *, budget: bool = True) -> None:
    """Take from ``stored`` what commands change while the running task holds ``mine``."""
    mine.shared_with = stored.shared_with
    mine.requested = stored.requested
    mine.version = stored.version
    if budget:
        mine.budget = stored.budget


async def save_carried(
    store: CampaignStore,
    campaign: Campaign,
    save: Callable[..., Awaitable[Campaign]],
    *,
    keep_budget: bool = True,
) -> Campaign:
    """The running task's save: carry, then compare-and-set; on a concurrent command's save, again."""
    for _ in range(CAS_ATTEMPTS):
        stored = await store.get(campaign.id)
        carry(stored, campaign, budget=keep_budget)
        try:
            return await save(campaign, expected_version=stored.version)
        except LeaseLost:
            raise
        except Conflict:
            continue
    raise Conflict(f"campaign {campaign.id} kept changing while its step was saved; it resumes from the last one")


async def write_through(
    store: CampaignStore,
    campaign_id: str,
    change: Callable[[Campaign], None],
    announce: Callable[[str], Awaitable[None]],
) -> Campaign:
    """A command's write: ``change`` (which may refuse by raising) on the current record, saved if unchanged."""
    for _ in range(CAS_ATTEMPTS):
        campaign = await store.get(campaign_id)
        change(campaign)
        try:
            saved = await store.save(campaign, expected_version=campaign.version)
        except LeaseLost:
            raise
        except Conflict:
            continue  # the record moved meanwhile: look again
        await announce(campaign_id)
        return saved
    raise Conflict(f"campaign {campaign_id} kept changing while this was written; try again")
