"""Embedding the passages that have no vector yet, in batches, after they are stored.

Adding documents makes them searchable by words at once; vectors follow. The CLI runs
:func:`embed_pending` in the foreground with a progress line; the server runs
:class:`BackgroundEmbedding`, woken by adds and started on launch, so work left by a restart
resumes where it stopped (what has no vector is what is left: there is no separate queue to lose).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Protocol

import anyio

from deepr_mcp.embedding.base import Embedder
from deepr_mcp.research.corpus.vectors import Pending

__all__ = ["BATCH", "BackgroundEmbedding", "embed_pending"]

log = logging.getLogger(__name__)

BATCH = 64
"""Passages per model call and per transaction: big enough to batch, small enough to stop soon."""


class EmbeddableCorpus(Protocol):
    def pending_embeddings(self, model: str, limit: int = 64) -> list[Pending]: ...

    def store_embeddings(self, model: str, items: list[Pending], rows: object) -> int: ...

    def embedding_status(self, model: str) -> dict[str, int]: ...


def embed_batch(corpus: EmbeddableCorpus, embedder: Embedder, batch: int = BATCH) -> int:
    """Embed and store one batch; returns how many passages it held (0: nothing is left)."""
    items = corpus.pending_embeddings(embedder.name, batch)
    if not items:
        return 0
    rows = embedder.embed([p.text for p in items])
    corpus.store_embeddings(embedder.name, items, rows)
    return len(items)


def embed_pending(
    corpus: EmbeddableCorpus,
    embedder: Embedder,
    *,
    batch: int = BATCH,
    progress: Callable[[int, int, float], None] | None = None,
) -> int:
    """Embed every passage still without a vector of ``embedder``; returns how many were embedded.

    ``progress(done, total, seconds)`` after each batch. Each batch is committed on its own, so an
    interrupted run keeps its work and the next one goes on from there.
    """
    if embedder.dimensions <= 0:
        return 0
    total = corpus.embedding_status(embedder.name)["pending"]
    started = time.monotonic()
    done = 0
    while True:
        n = embed_batch(corpus, embedder, batch)
        if n == 0:
            return done
        done += n
        if progress is not None:
            progress(done, max(total, done), time.monotonic() - started)


class BackgroundEmbedding:
    """The server's embedding worker: one batch at a time in a thread, between adds and queries.

    ``wake()`` after an add (or a change applied from another replica); with nothing to do it
    also looks again every ``idle_s`` seconds, for changes another process made to the corpus.
    """

    def __init__(self, corpus: EmbeddableCorpus, embedder: Embedder, *, idle_s: float = 10.0) -> None:
        self.corpus = corpus
        self.embedder = embedder
        self.idle_s = idle_s
        self.running = False
        """A batch is being embedded now (shown in the corpus status)."""
        self.error: str | None = None
        self._wake = anyio.Event()

    def wake(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        if self.embedder.dimensions <= 0:
            return
        while True:
            self._wake = anyio.Event()
            try:
                while True:
                    self.running = True
                    n = await anyio.to_thread.run_sync(embed_batch, self.corpus, self.embedder)
                    if n == 0:
                        break
                self.error = None
            except Exception as exc:  # a model or disk failure must not stop the server: say it in the status
                log.warning("embedding passages failed: %s", exc, exc_info=True)
                self.error = f"{type(exc).__name__}: {exc}"[:300]
            finally:
                self.running = False
            with anyio.move_on_after(self.idle_s):
                await self._wake.wait()

    def status(self) -> dict[str, object]:
        """What corpus_list shows: the model, how many passages have vectors, how many wait."""
        counts = self.corpus.embedding_status(self.embedder.name)
        state = "off" if self.embedder.dimensions <= 0 else ("embedding" if counts["pending"] else "done")
        answer: dict[str, object] = {"model": self.embedder.name, "state": state, **counts}
        if self.error:
            answer["error"] = self.error
        return answer
