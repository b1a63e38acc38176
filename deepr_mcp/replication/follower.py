"""Keeping a replica's local state in step with the others through a shared, ordered log.

Each replica keeps its own copy (the corpus's SQLite/FTS5 index, the sandbox folders), so reads
stay local and fast; what is shared is the log of changes. The follower publishes this replica's
outbox to the log and hands every entry after its cursor to the target, which applies others'
changes and skips its own. While the store is down, local work goes on (changes wait in the
outbox) and the follower retries with backoff; when it is back, the outbox drains and the
replica catches up from its saved cursor.
"""

from __future__ import annotations

import logging
from typing import Protocol

import anyio

from deepr_mcp.errors import DeeprError

__all__ = ["ChangeLog", "Follower", "Replicated"]

log = logging.getLogger(__name__)


class ChangeLog(Protocol):
    """An append-only log every replica reads in the same order (a Redis stream in ``deepr_mcp/redis``)."""

    async def append(self, change: str) -> str:
        """Append one change (JSON); returns its entry id."""
        ...

    async def read_after(self, entry_id: str, *, block_ms: int, count: int) -> list[tuple[str, str]]:
        """Entries after ``entry_id`` ("0": from the start), waiting up to ``block_ms`` for one."""
        ...

    async def last_id(self) -> str:
        """The newest entry's id ("0": the log is empty)."""
        ...


class Replicated(Protocol):
    """Local state that records its changes in an outbox and applies the log's entries (sync: run in threads)."""

    def outbox(self, limit: int = 100) -> list[tuple[int, str]]: ...

    def mark_published(self, seq: int) -> None: ...

    def sync_cursor(self) -> str: ...

    def apply_entry(self, entry_id: str, change: str) -> bool:
        """Apply one entry (skipping this replica's own and malformed ones) and move the cursor past it."""
        ...


class Follower:
    """Publishes one target's changes and applies the others'; ``run`` goes on until cancelled."""

    def __init__(
        self, name: str, target: Replicated, changes: ChangeLog, *, block_ms: int = 500, catch_up_s: float = 5.0
    ) -> None:
        self.name = name
        self.catch_up_s = catch_up_s
        """``caught_up``'s wait when none is given (setting ``store.catch_up_s``)."""
        self._target = target
        self._log = changes
        self._block_ms = block_ms
        self._batch = 100
        self._publishing = anyio.Lock()  # the loop and ``durable`` never send one row twice
        self._moved = anyio.Event()  # set (and replaced) each time the cursor may have moved

    async def durable(self) -> int:
        """Send this replica's outbox now: once it returns, what was written locally is in the shared
        log, so a replica killed next loses none of it (a sandbox write is acknowledged after this)."""
        return await self.publish()

    async def caught_up(self, timeout_s: float | None = None) -> bool:
        """Wait (at most ``timeout_s``, default ``catch_up_s``) until this replica has applied every entry
        the log held when called (False: timed out, say with the store down; the caller then answers
        from what it has)."""
        try:
            last = _entry_key(await self._log.last_id())
        except DeeprError:  # the store is down: reads go on from the local copy, as before
            return False

        async def applied() -> bool:
            return _entry_key(await anyio.to_thread.run_sync(self._target.sync_cursor)) >= last

        if await applied():  # already there: true even with no time to wait
            return True
        with anyio.move_on_after(self.catch_up_s if timeout_s is None else timeout_s):
            while not await applied():
                await self._moved.wait()
            return True
        return False

    def _signal(self) -> None:
        self._moved.set()
        self._moved = anyio.Event()

    async def run(self) -> None:
        backoff, down = 0.1, False
        while True:
            try:
                await self.publish()
                await self.catch_up()
                self._signal()
            except DeeprError as exc:  # the store is down or refused: local work goes on, retry later
                if not down:
                    log.warning("%s sharing paused: %s", self.name, exc)
                down = True
                await anyio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
                continue
            if down:
                log.warning("%s sharing resumed", self.name)
            backoff, down = 0.1, False

    async def publish(self) -> int:
        """Send the outbox, oldest first; a change leaves the outbox only once the log holds it."""
        sent = 0
        async with self._publishing:
            while rows := await anyio.to_thread.run_sync(self._target.outbox, self._batch):
                for seq, change in rows:
                    await self._log.append(change)
                    await anyio.to_thread.run_sync(self._target.mark_published, seq)
                    sent += 1
        return sent

    async def catch_up(self) -> int:
        """Apply the log's entries after the cursor (waiting briefly for new ones); returns how many changed state."""
        after = await anyio.to_thread.run_sync(self._target.sync_cursor)
        entries = await self._log.read_after(after, block_ms=self._block_ms, count=self._batch)
        applied = 0
        for entry_id, change in entries:
            applied += await anyio.to_thread.run_sync(self._target.apply_entry, entry_id, change)
        return applied


def _entry_key(entry_id: str) -> tuple[int, int]:
    """A stream entry id ("<ms>-<seq>", or "0") as something that orders like the log."""
    ms, _, seq = entry_id.partition("-")
    return int(ms or 0), int(seq or 0)
