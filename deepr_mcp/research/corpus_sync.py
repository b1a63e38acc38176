"""Replicas' corpora kept in step through a shared, ordered log of changes.

Each replica keeps its own SQLite/FTS5 corpus, so search stays local and fast; what is shared
is the log. The follower publishes this replica's outbox to the log and applies every other
replica's changes from it, in log order. While the store is down, adding and searching keep
working locally (changes wait in the outbox) and the follower retries with backoff; when it is
back, the outbox drains and the replica catches up from its saved cursor.
"""

from __future__ import annotations

import logging
from typing import Protocol

import anyio

from deepr_mcp.errors import DeeprError, InvalidInput
from deepr_mcp.research.corpus_changes import CorpusChange
from deepr_mcp.research.passages import Corpus

__all__ = ["CorpusFollower", "CorpusLog"]

log = logging.getLogger(__name__)


class CorpusLog(Protocol):
    """An append-only log every replica reads in the same order (a Redis stream in ``stores``)."""

    async def append(self, change: str) -> str:
        """Append one change (JSON); returns its entry id."""
        ...

    async def read_after(self, entry_id: str, *, block_ms: int, count: int) -> list[tuple[str, str]]:
        """Entries after ``entry_id`` ("0": from the start), waiting up to ``block_ms`` for one."""
        ...


class CorpusFollower:
    """Publishes this replica's corpus changes and applies the others'; runs until cancelled."""

    def __init__(self, corpus: Corpus, changes: CorpusLog, *, block_ms: int = 500, batch: int = 100) -> None:
        self._corpus = corpus
        self._log = changes
        self._block_ms = block_ms
        self._batch = batch

    async def run(self) -> None:
        backoff, down = 0.1, False
        while True:
            try:
                await self.publish()
                await self.catch_up()
            except DeeprError as exc:  # the store is down or refused: local work goes on, retry later
                if not down:
                    log.warning("corpus sharing paused: %s", exc)
                down = True
                await anyio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
                continue
            if down:
                log.warning("corpus sharing resumed")
            backoff, down = 0.1, False

    async def publish(self) -> int:
        """Send the outbox, oldest first; a change leaves the outbox only once the log holds it."""
        sent = 0
        while rows := await anyio.to_thread.run_sync(self._corpus.outbox, self._batch):
            for seq, change in rows:
                await self._log.append(change)
                await anyio.to_thread.run_sync(self._corpus.mark_published, seq)
                sent += 1
        return sent

    async def catch_up(self) -> int:
        """Apply the log's entries after this replica's cursor (waiting briefly for new ones)."""
        after = await anyio.to_thread.run_sync(self._corpus.sync_cursor)
        entries = await self._log.read_after(after, block_ms=self._block_ms, count=self._batch)
        applied = 0
        for entry_id, text in entries:
            try:
                change = CorpusChange.from_json(text)
            except InvalidInput as exc:  # a bad entry is skipped (cursor moves), never retried forever
                log.warning("corpus log entry %s skipped: %s", entry_id, exc.message)
                change = CorpusChange("forget", "", "")
            applied += await anyio.to_thread.run_sync(self._corpus.apply_change, entry_id, change)
        return applied
