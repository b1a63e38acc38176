"""Retrieval by whole page: the pages nearest in meaning to a question, then their best passages.

A user describes a task; the page that answers it says so in its title and opening paragraph
taken together, while each passage alone (a synopsis, an option, a caveat) is too far from the
question in meaning. So each page gets one vector, and the pages nearest to the question give one
more ranking to fuse beside words and nearest passages.

A page is a document's part under one top-level heading (the heading path's first part): the
whole page for HTML and Markdown, a chapter for a PDF manual that is one document. Its vector is
either ``head`` (the document's name, that heading and the opening text, embedded as one unit) or
``mean`` (the mean of its stored passage vectors: nothing new to embed).
The index is built from the stored passages and vectors on first use and kept per corpus until
the corpus's passage or vector counts move (then it is rebuilt; head vectors already made are kept).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from deepr_mcp.embedding.base import Embedder

if TYPE_CHECKING:
    import numpy as np

__all__ = ["HEAD_CHARS", "PageIndex", "PageVector", "page_index"]

PageVector = Literal["head", "mean"]
HEAD_CHARS: Final = 800
"""The opening text embedded with a page's title: about the 256 word pieces MiniLM reads."""


@dataclass(slots=True)
class PageIndex:
    keys: list[tuple[str, str]]
    """(document path, top-level heading) per page, in the rows of ``matrix``."""
    passages: list[list[Any]]
    """Each page's passages (``Passage``), in document order."""
    matrix: Any
    """One unit vector per page (float32, pages x dimensions)."""
    stamp: tuple[int, int] = (0, 0)
    heads: dict[str, Any] = field(default_factory=dict)
    """Head text -> its vector, reused when the index is rebuilt."""

    def nearest(self, queries: np.ndarray, limit: int) -> list[int]:
        """Page rows by their best cosine to any query row, best first."""
        import numpy as np

        if self.matrix.size == 0 or not len(queries):
            return []
        scores = (self.matrix @ np.asarray(queries, dtype=np.float32).T).max(axis=1)
        return [int(i) for i in np.argsort(-scores, kind="stable")[:limit]]


_cache: weakref.WeakKeyDictionary[Any, dict[PageVector, PageIndex]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def page_index(corpus: Any, embedder: Embedder, kind: PageVector = "head") -> PageIndex | None:
    """The corpus's page index for ``embedder`` (None when the corpus cannot list its passages)."""
    listing = getattr(corpus, "iter_passages", None)
    status_of = getattr(corpus, "embedding_status", None)
    if listing is None or status_of is None:
        return None
    status = status_of(embedder.name)
    stamp = (status["passages"], status["embedded"])
    with _lock:
        held = _cache.setdefault(corpus, {})
        index = held.get(kind)
        if index is not None and index.stamp == stamp:
            return index
        rebuilt = _build(corpus, embedder, kind, listing(), index.heads if index is not None else {})
        rebuilt.stamp = stamp
        held[kind] = rebuilt
        return rebuilt


def _build(corpus: Any, embedder: Embedder, kind: PageVector, passages: Any, heads: dict[str, Any]) -> PageIndex:
    import numpy as np

    pages: dict[tuple[str, str], list[Any]] = {}
    for passage in passages:
        pages.setdefault((passage.path, passage.location.split(" > ")[0]), []).append(passage)
    keys = list(pages)
    ids = [pages[key] for key in keys]
    if kind == "mean":
        stored = corpus.vectors_of(embedder.name, [p.id for group in ids for p in group])
        rows, kept_keys, kept_ids = [], [], []
        for key, group in zip(keys, ids, strict=True):
            found = [stored[p.id] for p in group if p.id in stored]
            if found:
                mean = np.mean(found, axis=0)
                rows.append(mean / (np.linalg.norm(mean) or 1.0))
                kept_keys.append(key)
                kept_ids.append(group)
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(rows), -1)
        return PageIndex(kept_keys, kept_ids, matrix)
    texts = [_head_text(pages[key]) for key in keys]
    missing = [t for t in dict.fromkeys(texts) if t not in heads]
    for start in range(0, len(missing), 64):
        batch = missing[start : start + 64]
        heads.update(zip(batch, embedder.embed(batch), strict=True))
    matrix = np.asarray([heads[t] for t in texts], dtype=np.float32).reshape(len(texts), -1)
    return PageIndex(keys, ids, matrix, heads=heads)


def _head_text(passages: Sequence[Any]) -> str:
    """The document's name and the page's heading, then its opening text up to ``HEAD_CHARS``."""
    first = passages[0]
    title = " > ".join(part for part in (first.source, first.location.split(" > ")[0]) if part)
    opening = ""
    for passage in passages:
        opening = f"{opening} {passage.text}".strip()
        if len(opening) >= HEAD_CHARS:
            break
    return f"{title}\n{opening[:HEAD_CHARS]}"
