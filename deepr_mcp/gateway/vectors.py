"""Tool vectors for ``tool_search`` by meaning: embedded in the background, cached on disk.

A tool's text (name, title, the description's first sentence) is embedded once per model: vectors are
keyed by the model's name and a hash of the text, kept in one growing float32 array, and saved
to ``<cache_dir>/<model>.npz`` so a restart embeds only what changed. The cache forgets what no
catalogue asks for any more: a vector no tool has wanted for ``STALE_DAYS`` is dropped when the file is
next saved (at most ``MAX_CACHED`` are kept, the most recently wanted), and so is another model's file
(or a crashed save's leftover) untouched as long. Memory forgets the same vectors at the same moment,
so a server whose upstream catalogues keep changing holds what the file holds, not every text it saw.
Registering thousands of federated tools costs nothing at once: a worker thread embeds what is
missing in small batches (a search waits at most for one batch, since the model serialises its
calls), and until a tool has a vector, BM25 alone ranks it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Final, NamedTuple

import numpy as np

from deepr_mcp.embedding.base import Embedder
from deepr_mcp.gateway.spec import ToolSpec

__all__ = ["Layout", "ToolVectors", "first_sentence", "tool_text"]

logger = logging.getLogger(__name__)

BATCH: Final = 8
"""Tools per background call of the embedder: small, so a search queued behind it waits little."""
SAVE_EVERY: Final = 512
"""New vectors between two saves of the cache while a long backlog is embedded."""
QUERY_CACHE: Final = 256
"""Recent query vectors kept: agents repeat their searches."""
STALE_DAYS: Final = 30
"""Days after which a cached vector no tool has wanted, or another model's cache file, is deleted:
long enough for an upstream that is down for a while to find its tools' vectors when it is back."""
MAX_CACHED: Final = 100_000
"""Vectors a cache file keeps at most (the most recently wanted; 77 MB at 384 float16 dimensions)."""
DAY: Final = 86_400.0

_seen: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
"""The last ``MAX_CACHED`` vectors embedded in this process, by (model, text hash): a second registry in
the same process (a test, an embedding app, a CLI command beside a server) gets the catalogue's at once."""
_seen_lock = threading.Lock()


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|(?<=[。！？])|\n\s*\n")
"""Where a description's first sentence ends: end punctuation before a capital, CJK end marks, or a blank line."""


def first_sentence(description: str) -> str:
    text = description.strip()
    end = _SENTENCE_END.search(text)
    return (text[: end.start()] if end else text).strip()


def tool_text(spec: ToolSpec) -> str:
    """What a tool is embedded as: its name in words, title, and the first sentence of its description.

    A mean-pooled sentence vector of a whole description is diluted by its argument docs, examples
    and caveats; the first sentence says what the tool is for. Measured (bench/tool_retrieval.py,
    tuning two thirds, fused): Recall@3 0.587 with the whole description and parameter names, 0.619
    with the first sentence; on the catalogue's own 132 queries 0.841 -> 0.856. Parameter names and
    descriptions still count in the BM25 half.
    """
    parts = [re.sub(r"[_.\-]+", " ", spec.name).strip(), spec.title or "", first_sentence(spec.description)]
    return ". ".join(p for p in parts if p)


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Layout(NamedTuple):
    """Where a catalogue's vectors are, taken at one moment: ``positions[i]`` is ``keys[i]``'s row in
    ``matrix`` (-1 where not embedded yet). Valid as long as the reader holds it: rows are appended in
    place, and forgetting builds a new matrix, so a held matrix never changes under its positions."""

    version: int
    positions: np.ndarray
    matrix: np.ndarray


class ToolVectors:
    """Vectors of one embedder, by text hash; thread-safe; a worker thread fills in what is missing.

    ``layout(keys)`` hands out positions and the matrix they index together; ``version`` changes
    whenever either could (a vector added, stale vectors forgotten).
    """

    def __init__(
        self, embedder: Embedder, cache_dir: Path | None = None, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.embedder = embedder
        self.model = embedder.name
        self.cache_file = cache_dir / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', self.model)}.npz" if cache_dir else None
        self._clock = clock
        self._wanted: dict[str, int] = {}
        """Text hash -> the day (since the epoch) a tool last wanted its vector: what the cache keeps."""
        self._restamped = False
        self._lock = threading.Condition()
        self._rows = np.zeros((0, embedder.dimensions), dtype=np.float32)
        self._count = 0
        self._version = 0
        self._index: dict[str, int] = {}
        self._pending: OrderedDict[str, str] = OrderedDict()
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._query_lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._closed = False
        self._busy = False
        self._unsaved = 0
        self.failed: str | None = None
        """Why the last background batch failed (the tools stay ranked by words), or ``None``."""
        self._load()

    @property
    def version(self) -> int:
        """Changes whenever a vector is added or stale ones are forgotten (positions may then move)."""
        return self._version

    @property
    def stored(self) -> int:
        """How many vectors are held in memory."""
        return self._count

    def want(self, specs: Iterable[ToolSpec]) -> None:
        """Queue every tool whose text has no vector yet; the worker embeds them in the background."""
        with self._lock:
            if self._closed:
                return
            known: list[tuple[str, np.ndarray]] = []
            today = self._today()
            for spec in specs:
                text = tool_text(spec)
                key = text_key(text)
                if self._wanted.get(key, -1) < today:
                    self._wanted[key] = today
                    self._restamped = True
                if key in self._index:
                    continue
                vector = _seen.get((self.model, key))
                if vector is not None:
                    known.append((key, vector))
                else:
                    self._pending[key] = text
            if known:
                self.add([k for k, _ in known], np.stack([v for _, v in known]))
            if (self._pending or self._restamped) and not self._busy:
                # a new day's stamps may leave vectors no tool wants: the worker's save forgets them
                self._busy = True
                self._worker = threading.Thread(target=self._run, name="tool-vectors", daemon=True)
                self._worker.start()

    def layout(self, keys: Sequence[str]) -> Layout:
        """Each key's row and the stored vectors (unit length), taken together under one lock."""
        with self._lock:
            positions = np.fromiter((self._index.get(k, -1) for k in keys), dtype=np.int64, count=len(keys))
            return Layout(self._version, positions, self._rows[: self._count])

    def positions(self, keys: Sequence[str]) -> np.ndarray:
        """Row of each key in the stored matrix (-1 where not embedded yet): ``layout`` without the matrix."""
        return self.layout(keys).positions

    def knows_query(self, query: str) -> bool:
        """Whether ``query``'s vector is cached (embedding it again costs nothing)."""
        with self._query_lock:
            return query in self._queries

    def embed_query(self, query: str) -> np.ndarray:
        """The query's vector, from a small cache of recent queries when it was asked before."""
        with self._query_lock:
            hit = self._queries.get(query)
            if hit is not None:
                self._queries.move_to_end(query)
                return hit
        vector = self.embedder.embed([query], query=True)[0]
        with self._query_lock:
            self._queries[query] = vector
            if len(self._queries) > QUERY_CACHE:
                self._queries.popitem(last=False)
        return vector

    def wait_idle(self, timeout: float) -> bool:
        """Block until nothing is left to embed (``True``) or ``timeout`` seconds pass (``False``)."""
        with self._lock:
            return self._lock.wait_for(lambda: not self._pending and not self._busy, timeout)

    def pending(self) -> int:
        with self._lock:
            return len(self._pending)

    def close(self) -> None:
        """Stop the worker after its current batch and save what was embedded."""
        with self._lock:
            self._closed = True
            self._pending.clear()
            worker = self._worker
            self._lock.notify_all()
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout=60)
        self._save()

    def add(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Store vectors for text hashes (the worker's and the cache's way in; benches fill it directly)."""
        vectors = np.asarray(vectors, dtype=np.float32)
        with self._lock:
            fresh = [(k, v) for k, v in zip(keys, vectors, strict=True) if k not in self._index]
            today = self._today()
            need = self._count + len(fresh)
            if need > len(self._rows):
                grown = np.zeros((max(need, 2 * len(self._rows), 64), self.embedder.dimensions), dtype=np.float32)
                grown[: self._count] = self._rows[: self._count]
                self._rows = grown
            for key, vector in fresh:
                self._rows[self._count] = vector
                self._index[key] = self._count
                self._count += 1
                self._wanted.setdefault(key, today)  # stored without a tool asking (a bench): wanted now
            self._unsaved += len(fresh)
            self._version += bool(fresh)
            for key in keys:
                self._pending.pop(key, None)

    def _run(self) -> None:
        """Embed what is pending, batch by batch; then save (and forget what no tool wants) before going
        idle, so ``wait_idle`` returns on a store that holds what it will hold. ``_busy`` is the worker's
        flag, set by ``want`` when it starts one and cleared here, both under the lock: a tool queued
        while the worker saves is embedded by it, not left waiting for the next ``want``."""
        while True:
            with self._lock:
                batch = list(self._pending.items())[:BATCH] if not self._closed else []
            if not batch:
                self._save()
                with self._lock:
                    if self._closed or not self._pending:
                        self._busy = False
                        self._lock.notify_all()
                        return
                continue
            try:
                vectors = self.embedder.embed([text for _, text in batch])
            except Exception as exc:  # a broken model must not take the server down: words still rank
                logger.warning("tool vectors: embedding failed, tool_search ranks by words: %s", exc)
                with self._lock:
                    self.failed = str(exc)
                    self._pending.clear()
                    self._busy = False
                    self._lock.notify_all()
                return
            self.add([key for key, _ in batch], vectors)
            with _seen_lock:
                _seen.update(((self.model, key), row) for (key, _), row in zip(batch, vectors, strict=True))
                while len(_seen) > MAX_CACHED:  # the oldest first
                    del _seen[next(iter(_seen))]
            if self._unsaved >= SAVE_EVERY:
                self._save()

    def _load(self) -> None:
        if self.cache_file is None or not self.cache_file.is_file():
            return
        today = self._today()
        try:
            with np.load(self.cache_file, allow_pickle=False) as data:
                keys = [str(k) for k in data["keys"]]
                rows = data["rows"].astype(np.float32)
                stamped = "wanted" in data  # a file saved before the stamps: stamp it at the next save
                days = data["wanted"].astype(np.int64) if stamped else np.full(len(keys), today)
            if rows.shape != (len(keys), self.embedder.dimensions) or days.shape != (len(keys),):
                raise ValueError(f"rows of shape {rows.shape} for {len(keys)} keys")
        except (OSError, ValueError, KeyError) as exc:
            logger.warning("tool vectors: ignoring unreadable %s (%s); embedding again", self.cache_file, exc)
            return
        self.add(keys, rows)
        with self._lock:
            for key, day in zip(keys, days.tolist(), strict=True):
                self._wanted[key] = day  # the file's day, not the day add() stamped it
            self._unsaved = 0
            self._restamped = not stamped

    def _today(self) -> int:
        return int(self._clock() // DAY)

    def _save(self) -> None:
        """Keep what tools still want (the newest ``MAX_CACHED`` wanted within ``STALE_DAYS``), in memory and
        in the cache file, then prune other files."""
        with self._lock:
            if self._unsaved == 0 and not self._restamped:
                return
            fresh_from = self._today() - STALE_DAYS
            kept = [(day, key) for key, day in self._wanted.items() if day >= fresh_from and key in self._index]
            kept = sorted(kept, reverse=True)[:MAX_CACHED]
            keys = [key for _, key in kept]
            rows = self._rows[[self._index[key] for key in keys]]
            if len(keys) < self._count:
                self._forget(keys, rows)
            self._unsaved = 0
            self._restamped = False
            if self.cache_file is None:
                return
            rows = rows.astype(np.float16)
        payload: dict[str, Any] = {
            "keys": np.array(keys, dtype=str),
            "rows": rows.reshape(len(keys), self.embedder.dimensions),
            "wanted": np.array([day for day, _ in kept], dtype=np.int64),
        }
        try:
            self.cache_file.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.cache_file.with_name(f".{self.cache_file.name}.{os.getpid()}.{threading.get_ident()}.tmp.npz")
            np.savez(tmp, **payload)
            os.replace(tmp, self.cache_file)
        except OSError as exc:
            logger.warning("tool vectors: cannot save %s: %s", self.cache_file, exc)
        self._prune_others()

    def _forget(self, keys: list[str], rows: np.ndarray) -> None:
        """Hold only ``keys`` (with their ``rows``), in a new matrix: a reader's older one stays valid."""
        self._rows = np.array(rows, dtype=np.float32).reshape(len(keys), self.embedder.dimensions)
        self._index = {key: i for i, key in enumerate(keys)}
        self._count = len(keys)
        held = set(keys)
        self._wanted = {key: day for key, day in self._wanted.items() if key in held or key in self._pending}
        self._version += 1

    def _prune_others(self) -> None:
        """Delete other models' cache files nothing has written for ``STALE_DAYS`` (a file another process
        keeps using is rewritten, so it stays fresh), and a save's temporary file left for a day (its
        writer died mid-save: a live one replaces it within seconds)."""
        assert self.cache_file is not None
        now = self._clock()
        for path in self.cache_file.parent.glob("*.npz"):
            if path.name == self.cache_file.name:
                continue
            unfinished = path.name.startswith(".") and path.name.endswith(".tmp.npz")
            try:
                if path.stat().st_mtime < now - (DAY if unfinished else STALE_DAYS * DAY):
                    path.unlink()
            except OSError:  # another process got there first, or it is not ours to delete: leave it
                continue
