"""Who runs a campaign: one runner at a time, whatever asked it to run.

Today one process runs every campaign, so the embedded lease is a lock per campaign id; a
second runner (a resume racing the end of a pause, say) waits for the first to let go and
then finds the record as the first left it. With several replicas the same seam is a lease with
a heartbeat and a fencing token in the shared store (``redis/lease.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol

import anyio

from deepr_mcp.errors import Conflict


class LeaseLost(Conflict):
    """A save refused because another replica now holds the campaign's lease (its fencing token is newer)."""


class CampaignLease(Protocol):
    def hold(self, campaign_id: str) -> AbstractAsyncContextManager[None]:
        """Enter once this runner alone runs ``campaign_id``; leave to let the next one in."""
        ...


class LocalLease:
    """The embedded lease: an in-process lock per campaign, forgotten when nobody holds or waits."""

    def __init__(self) -> None:
        self._locks: dict[str, anyio.Lock] = {}
        self._users: dict[str, int] = {}

    @asynccontextmanager
    async def hold(self, campaign_id: str) -> AsyncIterator[None]:
        lock = self._locks.setdefault(campaign_id, anyio.Lock())
        self._users[campaign_id] = self._users.get(campaign_id, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._users[campaign_id] -= 1
            if not self._users[campaign_id]:
                del self._users[campaign_id], self._locks[campaign_id]

    def held(self, campaign_id: str) -> bool:
        lock = self._locks.get(campaign_id)
        return lock is not None and lock.locked()
