"""The corpus's side of passage vectors: pending work, storing a batch, nearest neighbours.

A mixin of ``Corpus`` (its connection, lock, change counter and replication log), kept apart so
the corpus module stays about documents and passages.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from deepr_mcp.research.corpus import vectors
from deepr_mcp.research.corpus.changes import CorpusChange
from deepr_mcp.research.corpus.vectors import Pending, VectorIndex
from deepr_mcp.research.passage import Passage

if TYPE_CHECKING:
    import numpy as np

__all__ = ["PASSAGE_COLUMNS", "CorpusVectors", "passage_row"]

PASSAGE_COLUMNS = "p.id, p.text, COALESCE(NULLIF(d.name, ''), p.path), p.location, p.path"


def passage_row(row: tuple, score: float = 0.0) -> Passage:
    return Passage(id=row[0], text=row[1], source=row[2], location=row[3], score=score, path=row[4])


class CorpusVectors:
    _db: sqlite3.Connection
    _lock: threading.Lock
    _generation: int
    _index: VectorIndex
    _log: Callable[[CorpusChange], None]

    def pending_embeddings(self, model: str, limit: int = 64) -> list[Pending]:
        """Passages with no vector of ``model`` yet, oldest first."""
        with self._lock:
            return vectors.pending(self._db, model, limit)

    def store_embeddings(self, model: str, items: Sequence[Pending], rows: np.ndarray) -> int:
        """One batch of vectors in one transaction; returns how many were stored (removed passages are skipped)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                batch = [(p.rowid, p.passage_id, row) for p, row in zip(items, rows, strict=True)]
                written = set(vectors.put(self._db, model, batch))
                if written:
                    self._log(CorpusChange("vectors", model, "", vectors=vectors.logged(items, rows, written)))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            picked = [i for i, p in enumerate(items) if p.rowid in written]
            self._index.extend(model, [items[i].rowid for i in picked], rows[picked])
        return len(written)

    def embedding_status(self, model: str) -> dict[str, int]:
        """Passages, how many have a vector of ``model``, and how many wait for one."""
        with self._lock:
            return vectors.embedding_status(self._db, model)

    def forget_embeddings(self) -> int:
        """Drop every stored vector (before embedding again from scratch); returns how many went."""
        with self._lock:
            gone = self._db.execute("DELETE FROM passage_embeddings").rowcount
            self._generation += 1
        return gone

    def nearest(self, model: str, vector: np.ndarray, limit: int) -> list[Passage]:
        """The passages closest in meaning to ``vector`` among those embedded so far (score = cosine)."""
        with self._lock:
            hits = self._index.current(self._db, model, self._generation).nearest(vector, limit)
            if not hits:
                return []
            marks = ",".join("?" * len(hits))
            rows = self._db.execute(
                f"SELECT {PASSAGE_COLUMNS}, p.rowid FROM passages p LEFT JOIN documents d ON d.path = p.path "
                f"WHERE p.rowid IN ({marks})",
                [rowid for rowid, _ in hits],
            ).fetchall()
        found = {r[5]: r for r in rows}
        return [passage_row(found[rowid], score=round(score, 6)) for rowid, score in hits if rowid in found]

    def vectors_of(self, model: str, passage_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of these passages (those embedded so far), as float32 rows."""
        import numpy as np

        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(passage_ids))
        with self._lock:
            for start in range(0, len(unique), 500):
                batch = unique[start : start + 500]
                marks = ",".join("?" * len(batch))
                for passage_id, blob in self._db.execute(
                    "SELECT p.id, e.vector FROM passages p JOIN passage_embeddings e ON e.passage = p.rowid "
                    f"WHERE e.model = ? AND p.id IN ({marks})",
                    [model, *batch],
                ):
                    found[passage_id] = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
        return found
