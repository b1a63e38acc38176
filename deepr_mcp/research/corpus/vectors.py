"""Passage vectors stored in the corpus database, and the in-memory index searched by meaning.

One row per passage (``passage_embeddings``: the passage's rowid, the model that made it, float16
bytes: 768 bytes a passage at 384 dimensions), written after the passage is stored, in batches, by
whoever embeds (the CLI in the foreground, the server in the background). Triggers delete a
passage's vector with the passage, or when its text or heading changes, so vectors stay in step
with documents. A vector of another model counts as missing: changing the model leaves the old
ones unused until ``deepr-mcp corpus embed`` replaces them.

The index is a float32 matrix of every vector of one model, rebuilt when passages changed (this
connection's count of changes, or SQLite's ``data_version`` for another process's commits) and
extended in place when vectors are added: a query is one matrix-vector product.
"""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = ["SCHEMA_STATEMENTS", "Pending", "VectorIndex", "embedding_status", "pending", "put"]

SCHEMA_STATEMENTS = (
    """\
CREATE TABLE IF NOT EXISTS passage_embeddings (
    passage INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    vector BLOB NOT NULL
)
""",
    """\
CREATE TRIGGER IF NOT EXISTS passages_embeddings_ad AFTER DELETE ON passages BEGIN
    DELETE FROM passage_embeddings WHERE passage = old.rowid;
END
""",
    # A passage's vector holds its heading and text: it goes when either changes, not when a row is only
    # rewritten with the same values (a document swap re-points what it still holds; rows.replace_chunks).
    "DROP TRIGGER IF EXISTS passages_embeddings_au",
    """\
CREATE TRIGGER IF NOT EXISTS passages_embeddings_changed AFTER UPDATE OF location, text ON passages
WHEN old.location IS NOT new.location OR old.text IS NOT new.text BEGIN
    DELETE FROM passage_embeddings WHERE passage = old.rowid;
END
""",
    # The optional torch re-ranker's table (model + text hash keys) before vectors lived per passage.
    "DROP TABLE IF EXISTS passage_vectors",
)


def passage_text(location: str, text: str) -> str:
    """What is embedded for a passage: its heading path, then its text (the heading says the topic)."""
    return f"{location}\n{text}" if location else text


@dataclass(frozen=True, slots=True)
class Pending:
    rowid: int
    passage_id: str
    text: str


def pending(db: sqlite3.Connection, model: str, limit: int) -> list[Pending]:
    """Up to ``limit`` passages with no vector of ``model``, oldest first (so work resumes in order)."""
    rows = db.execute(
        "SELECT p.rowid, p.id, p.location, p.text FROM passages p LEFT JOIN passage_embeddings e "
        "ON e.passage = p.rowid AND e.model = ? WHERE e.passage IS NULL ORDER BY p.rowid LIMIT ?",
        (model, limit),
    ).fetchall()
    return [Pending(r[0], r[1], passage_text(r[2], r[3])) for r in rows]


def put(db: sqlite3.Connection, model: str, items: list[tuple[int, str, np.ndarray]]) -> list[int]:
    """Store vectors in the caller's transaction; returns the rowids written.

    A passage removed or replaced since it was read (its rowid gone or holding another id) is
    skipped, so a vector is never filed under the wrong passage.
    """
    import numpy as np

    written = []
    for rowid, passage_id, vector in items:
        blob = np.asarray(vector, dtype=np.float16).tobytes()
        cursor = db.execute(
            "INSERT OR REPLACE INTO passage_embeddings (passage, model, vector) "
            "SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM passages WHERE rowid = ? AND id = ?)",
            (rowid, model, blob, rowid, passage_id),
        )
        if cursor.rowcount:
            written.append(rowid)
    return written


def logged(items: list[Pending], rows: np.ndarray, written: set[int]) -> list[tuple[str, str]]:
    """The vectors just stored, as (passage id, base64 float16) for the other replicas."""
    import numpy as np

    return [
        (p.passage_id, base64.b64encode(np.asarray(row, dtype=np.float16).tobytes()).decode("ascii"))
        for p, row in zip(items, rows, strict=True)
        if p.rowid in written
    ]


def apply_logged(db: sqlite3.Connection, model: str, items: Sequence[tuple[str, str]]) -> int:
    """Another replica's vectors, for the passages this one holds and has not embedded yet; returns how many."""
    written = 0
    for passage_id, blob in items:
        try:
            vector = base64.b64decode(blob, validate=True)
        except ValueError:
            continue
        written += db.execute(
            "INSERT OR REPLACE INTO passage_embeddings (passage, model, vector) "
            "SELECT rowid, ?, ? FROM passages WHERE id = ? AND NOT EXISTS "
            "(SELECT 1 FROM passage_embeddings e WHERE e.passage = passages.rowid AND e.model = ?)",
            (model, vector, passage_id, model),
        ).rowcount
    return written


def embedding_status(db: sqlite3.Connection, model: str) -> dict[str, int]:
    passages, embedded = db.execute(
        "SELECT (SELECT count(*) FROM passages), (SELECT count(*) FROM passage_embeddings WHERE model = ?)", (model,)
    ).fetchone()
    return {"passages": passages, "embedded": embedded, "pending": max(0, passages - embedded)}


class VectorIndex:
    """Every vector of one model in memory, for exact nearest-neighbour search (the caller holds the lock)."""

    def __init__(self) -> None:
        import numpy as np

        self.model = ""
        self.rowids = np.zeros(0, dtype=np.int64)
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self._stamp: tuple[int, int] | None = None

    def current(self, db: sqlite3.Connection, model: str, generation: int) -> VectorIndex:
        """This index, reloaded first when the model, this connection's changes or another process's commits moved."""
        stamp = (generation, db.execute("PRAGMA data_version").fetchone()[0])
        if self._stamp != stamp or self.model != model:
            self._load(db, model)
            self._stamp = stamp
        return self

    def _load(self, db: sqlite3.Connection, model: str) -> None:
        import numpy as np

        rows = db.execute("SELECT passage, vector FROM passage_embeddings WHERE model = ?", (model,)).fetchall()
        self.model = model
        self.rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        if rows:
            joined = b"".join(r[1] for r in rows)
            self.matrix = np.frombuffer(joined, dtype=np.float16).reshape(len(rows), -1).astype(np.float32)
        else:
            self.matrix = np.zeros((0, 0), dtype=np.float32)

    def extend(self, model: str, rowids: list[int], vectors: np.ndarray) -> None:
        """Vectors this connection just stored (no reload needed); ignored until the index is loaded."""
        import numpy as np

        if self._stamp is None or model != self.model or not rowids:
            return
        rows = np.asarray(vectors, dtype=np.float16).astype(np.float32)
        self.rowids = np.concatenate([self.rowids, np.asarray(rowids, dtype=np.int64)])
        self.matrix = rows if self.matrix.size == 0 else np.vstack([self.matrix, rows])

    def spread(self, vector: np.ndarray) -> tuple[float, float]:
        """Mean and standard deviation of ``vector``'s cosine to every passage: how close "close" is
        in this corpus, for this query (0, 0 when nothing is embedded)."""
        import numpy as np

        if self.matrix.size == 0 or self.matrix.shape[1] != vector.shape[0]:
            return 0.0, 0.0
        scores = self.matrix @ np.asarray(vector, dtype=np.float32)
        return float(scores.mean()), float(scores.std())

    def nearest(self, vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """(rowid, cosine) of the ``limit`` closest passages, best first."""
        import numpy as np

        if self.matrix.size == 0 or self.matrix.shape[1] != vector.shape[0]:
            return []
        scores = self.matrix @ np.asarray(vector, dtype=np.float32)
        limit = min(limit, scores.shape[0])
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(self.rowids[i]), float(scores[i])) for i in top]
