"""When a replica's own changes are safe and visible to the others: the follower with a shared store,
or at once in one process.

``durable``: this replica's changes are in the shared log (a write is acknowledged, a campaign
announced finished, only after it). ``caught_up``: every change the log held when called is applied
here (a reader that saw a campaign finished then finds its report).
"""

from __future__ import annotations

from typing import Protocol


class ReplicaSync(Protocol):
    async def durable(self) -> int: ...

    async def caught_up(self, timeout_s: float | None = None) -> bool:
        """``None``: the configured wait (``store.catch_up_s``)."""
        ...


class LocalSync:
    """One process: every write is already where every reader looks."""

    async def durable(self) -> int:
        return 0

    async def caught_up(self, timeout_s: float | None = None) -> bool:
        return True
