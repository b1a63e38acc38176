"""Run slots shared fairly between principals, so one principal's queue cannot starve another's.

The job manager runs at most ``jobs.max_concurrent`` campaigns at once. With one first-come queue, a
principal that queued thirty campaigns held every other principal's campaign behind all thirty. Here
a freed slot goes to the waiting principal running the fewest campaigns (ties: the one served least
recently), and no principal runs more than ``jobs.max_running_per_principal`` at once.
"""

from __future__ import annotations

import itertools
from collections import Counter, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio


class _Ticket:
    __slots__ = ("granted", "ready")

    def __init__(self) -> None:
        self.ready = anyio.Event()
        self.granted = False


class FairSlots:
    """``async with slots.hold(principal):`` runs once a slot is this principal's turn."""

    def __init__(self, total: int, per_principal: int | None = None) -> None:
        self.total = total
        self.per_principal = per_principal or total
        self._running: Counter[str] = Counter()
        self._waiting: dict[str, deque[_Ticket]] = {}
        self._served: dict[str, int] = {}
        self._clock = itertools.count()

    @property
    def busy(self) -> int:
        return sum(self._running.values())

    def running(self, principal: str) -> int:
        return self._running[principal]

    @asynccontextmanager
    async def hold(self, principal: str) -> AsyncIterator[None]:
        ticket = _Ticket()
        self._waiting.setdefault(principal, deque()).append(ticket)
        self._grant()
        try:
            await ticket.ready.wait()
        except BaseException:  # cancelled while waiting: leave the queue, or pass on a slot just given
            if ticket.granted:
                self._release(principal)
            else:
                self._drop(principal, ticket)
            raise
        try:
            yield
        finally:
            self._release(principal)

    def _drop(self, principal: str, ticket: _Ticket) -> None:
        queue = self._waiting.get(principal)
        if queue is not None and ticket in queue:
            queue.remove(ticket)
            if not queue:
                del self._waiting[principal]

    def _release(self, principal: str) -> None:
        self._running[principal] -= 1
        if self._running[principal] <= 0:
            del self._running[principal]
        self._grant()

    def _grant(self) -> None:
        while self.busy < self.total:
            eligible = [p for p in self._waiting if self._running[p] < self.per_principal]
            if not eligible:
                return
            principal = min(eligible, key=lambda p: (self._running[p], self._served.get(p, -1)))
            queue = self._waiting[principal]
            ticket = queue.popleft()
            if not queue:
                del self._waiting[principal]
            self._running[principal] += 1
            self._served[principal] = next(self._clock)
            ticket.granted = True
            ticket.ready.set()
