"""Documents read by ``corpus add`` and waiting to be written together, one transaction per batch.

A commit per file wrote every touched page (FTS5 segments, B-tree interiors) to the WAL again and
left a new FTS5 segment to merge: 9.6x the database's size in writes for the Python docs
(``bench.ingest_disk``), 2.5x with batches. A batch closes at ``MAX_BYTES`` of text or after
``MAX_SECONDS``, so other writers wait at most that long and what was read is kept if a run stops.
Each document in a batch is still all or nothing: the transaction holds whole documents.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from deepr_mcp.research.corpus.ingest import AddReport, Chunk, FileResult

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PendingDocument:
    """A file's passages, read and waiting for its batch's transaction."""

    key: str
    name: str
    digest: str
    size: int
    chunks: list[Chunk]


@dataclass(slots=True)
class Batch:
    MAX_BYTES = 8_000_000
    MAX_SECONDS = 2.0
    documents: list[PendingDocument] = field(default_factory=list)
    text_bytes: int = 0
    opened: float = 0.0

    def add(self, doc: PendingDocument) -> None:
        if not self.documents:
            self.opened = time.monotonic()
        self.documents.append(doc)
        self.text_bytes += sum(len(c.text) for c in doc.chunks)

    def full(self) -> bool:
        return bool(self.documents) and (
            self.text_bytes >= self.MAX_BYTES or time.monotonic() - self.opened >= self.MAX_SECONDS
        )

    def take(self) -> list[PendingDocument]:
        documents, self.documents, self.text_bytes = self.documents, [], 0
        return documents


def store(documents: list[PendingDocument], write: Callable[[list[PendingDocument]], None], report: AddReport) -> None:
    """``write`` the batch in one transaction; should that fail on something other than the database
    itself (an extractor's odd output), each document is written alone and the one that fails is reported."""
    try:
        write(documents)
        return
    except sqlite3.Error:
        raise
    except Exception:
        log.debug("storing a batch of %d documents failed; storing them one by one", len(documents), exc_info=True)
    at = {result.path: i for i, result in enumerate(report.files)}
    for doc in documents:
        try:
            write([doc])
        except sqlite3.Error:
            raise
        except Exception as exc:
            reason = f"{doc.key}: could not be stored ({type(exc).__name__}: {exc})"[:500]
            report.files[at[doc.key]] = FileResult(doc.key, "failed", reason=reason, name=doc.name)
