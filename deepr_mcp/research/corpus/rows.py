"""The corpus's row writes, shared by local adds and changes applied from other replicas.

Each function runs inside a transaction its caller holds, so a document's passages are swapped
whole: the old set or the new, never a mix, whether the change came from a file or a replica.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime

from deepr_mcp.research.corpus.ingest import Chunk

__all__ = ["detach", "insert_chunks", "replace_chunks", "upsert_document"]


def upsert_document(
    db: sqlite3.Connection, key: str, name: str, digest: str, size: int, passages: int, extractor: int
) -> None:
    db.execute(
        "INSERT INTO documents (path, name, sha256, bytes, passages, added_at, extractor) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET name = excluded.name, "
        "sha256 = excluded.sha256, bytes = excluded.bytes, passages = excluded.passages, "
        "added_at = excluded.added_at, extractor = excluded.extractor",
        (key, name, digest, size, passages, datetime.now(UTC).isoformat(), extractor),
    )


def insert_chunks(db: sqlite3.Connection, key: str, chunks: Sequence[Chunk]) -> None:
    """Passages stored once by id (text hash); every chunk gets this document's ref to its passage."""
    db.executemany(
        'INSERT OR IGNORE INTO passages (id, path, location, start, "end", text) VALUES (?, ?, ?, ?, ?, ?)',
        [(c.id, key, c.location, c.start, c.end, c.text) for c in chunks],
    )
    db.executemany(
        'INSERT OR IGNORE INTO passage_refs (passage, path, location, start, "end") '
        "SELECT rowid, ?, ?, ?, ? FROM passages WHERE id = ?",
        [(key, c.location, c.start, c.end, c.id) for c in chunks],
    )


def detach(db: sqlite3.Connection, key: str) -> int:
    """Drop a document's hold on its passages (inside a transaction); returns how many went.

    A passage another document still holds stays, shown from then on as that document's.
    """
    return _release(db, key, _drop_refs(db, key))


def replace_chunks(db: sqlite3.Connection, key: str, chunks: Sequence[Chunk]) -> int:
    """A document's passages swapped for ``chunks`` (inside a transaction); returns how many went.

    The new version's passages are stored before the old version lets go of its own, so a passage it
    still holds (same text under the same heading) keeps its row and with it its vector: an edited page
    is embedded again only where it changed, not whole.
    """
    held = _drop_refs(db, key)
    insert_chunks(db, key, chunks)
    return _release(db, key, held)


def _drop_refs(db: sqlite3.Connection, key: str) -> list[int]:
    held = [r[0] for r in db.execute("SELECT passage FROM passage_refs WHERE path = ?", (key,))]
    db.execute("DELETE FROM passage_refs WHERE path = ?", (key,))
    return held


def _release(db: sqlite3.Connection, key: str, held: list[int]) -> int:
    """Passages ``key`` held: those no document holds any more go; the others take their first holder's place."""
    gone = 0
    for start in range(0, len(held), 500):
        batch = held[start : start + 500]
        marks = ",".join("?" * len(batch))
        gone += db.execute(
            f"DELETE FROM passages WHERE rowid IN ({marks}) "
            "AND NOT EXISTS (SELECT 1 FROM passage_refs r WHERE r.passage = passages.rowid)",
            batch,
        ).rowcount
        db.execute(
            'UPDATE passages SET (path, location, start, "end") = (SELECT r.path, r.location, r.start, r."end" '
            "FROM passage_refs r WHERE r.passage = passages.rowid ORDER BY r.path LIMIT 1) "
            f"WHERE rowid IN ({marks}) AND path = ?",
            [*batch, key],
        )
    # Passages a schema-1 document held with no ref row (none after migration; kept for safety).
    gone += db.execute(
        "DELETE FROM passages WHERE path = ? AND NOT EXISTS "
        "(SELECT 1 FROM passage_refs r WHERE r.passage = passages.rowid)",
        (key,),
    ).rowcount
    return gone
