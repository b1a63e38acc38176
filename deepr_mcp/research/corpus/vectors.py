"""Passage embeddings kept beside the passages, so a query costs one encoding plus dot products.

Encoding a passage with MiniLM takes tens of milliseconds on a 2-core CPU; re-ranking a pool
of 100-200 candidates per sub-question would cost seconds every time. Passages do not change
once stored, so their vectors are computed once (at first use, or all at once with
:func:`embed_corpus`) and kept in the corpus's own SQLite file, in a table of their own keyed
by model name and a hash of the embedded text: a changed passage has a new key, so a stale
vector is never used, and removing a document needs no bookkeeping here. Vectors are stored as
float16 (384 dimensions: 768 bytes a passage, about 19 MB for 24,000 passages); cosine scores
move by less than 1e-3.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from deepr_mcp.research.passage import Passage

if TYPE_CHECKING:
    import numpy as np

__all__ = ["VectorStore", "embed_corpus", "passage_text"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS passage_vectors ("
    " model TEXT NOT NULL, key BLOB NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, key)) WITHOUT ROWID"
)
_BATCH = 500


def passage_text(location: str, text: str) -> str:
    """What is embedded for a passage: its heading path, then its text (the heading says the topic)."""
    return f"{location}\n{text}"


class VectorStore:
    """One model's vectors in a SQLite file (the corpus's); safe to share between threads."""

    def __init__(self, path: Path | str, model: str, dimensions: int = 384) -> None:
        self.path = Path(path)
        self.model = model
        self.dimensions = dimensions
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        try:
            self._db.execute(_SCHEMA)
        except BaseException:
            self._db.close()
            raise

    def get(self, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        """The stored vectors among ``keys`` (float32 rows); missing keys are simply absent."""
        import numpy as np

        found: dict[bytes, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        with self._lock:
            for start in range(0, len(unique), _BATCH):
                batch = unique[start : start + _BATCH]
                marks = ",".join("?" * len(batch))
                rows = self._db.execute(
                    f"SELECT key, vector FROM passage_vectors WHERE model = ? AND key IN ({marks})",
                    [self.model, *batch],
                ).fetchall()
                for key, blob in rows:
                    row = np.frombuffer(blob, dtype=np.float16)
                    if row.shape[0] == self.dimensions:
                        found[bytes(key)] = row.astype(np.float32)
        return found

    def put(self, vectors: Iterable[tuple[bytes, np.ndarray]]) -> int:
        """Store vectors (replacing any under the same key); returns how many were written."""
        import numpy as np

        rows = [(self.model, key, np.asarray(v, dtype=np.float16).tobytes()) for key, v in vectors]
        if not rows:
            return 0
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT OR REPLACE INTO passage_vectors (model, key, vector) VALUES (?, ?, ?)", rows
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return len(rows)

    def count(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM passage_vectors WHERE model = ?", (self.model,)).fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


class _Embedder(Protocol):
    def embed(self, texts: Sequence[str], store: VectorStore | None = None) -> np.ndarray: ...


def embed_corpus(
    passages: Iterable[Passage],
    embedder: _Embedder,
    store: VectorStore,
    *,
    batch: int = 256,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Embed every passage not yet in ``store`` (at ingest, so no query pays for it); returns the count seen.

    Work is saved batch by batch: stopping half-way keeps what was done.
    """
    texts: list[str] = []
    done = 0
    for passage in passages:
        texts.append(passage_text(passage.location, passage.text))
        if len(texts) >= batch:
            embedder.embed(texts, store)
            done += len(texts)
            texts = []
            if progress is not None:
                progress(done)
    if texts:
        embedder.embed(texts, store)
        done += len(texts)
        if progress is not None:
            progress(done)
    return done
