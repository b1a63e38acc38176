"""Retrieval by whole page: the pages nearest in meaning to a question, then their best passages.

A user describes a task; the page that answers it is about that task as a whole, while each of its
passages alone (a synopsis, an option, a caveat) can be too far from the question in meaning. So
each page gets one vector, and the pages nearest to the question give one more ranking to fuse
beside words and nearest passages (``HybridSearch.near_pages``).

A page is a document's part under one top-level heading (the heading path's first part): the whole
page for HTML, a chapter of a PDF manual that is one document. Its vector is the mean of its stored
passage vectors, normalised: nothing new to embed. (Embedding each page's title and opening text
as one unit was measured too and found fewer gold passages on three of the four bench corpora.)
The index is built from the stored vectors on first use and kept per corpus until its passage or
vector counts or its list of documents (path, size, passages, when added) change.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


@dataclass(slots=True)
class PageIndex:
    passages: list[list[Any]]
    """Each page's passages (``Passage``), in document order, one list per row of ``matrix``."""
    matrix: Any
    """One unit vector per page (float32, pages x dimensions)."""
    stamp: tuple[int, int, int] = (0, 0, 0)
    """The corpus's passage and vector counts, and a hash of its document list, when built."""

    def nearest(self, queries: np.ndarray, limit: int) -> list[int]:
        """Page rows by their best cosine to any query row, best first."""
        import numpy as np

        if self.matrix.size == 0 or not len(queries):
            return []
        scores = (self.matrix @ np.asarray(queries, dtype=np.float32).T).max(axis=1)
        return [int(i) for i in np.argsort(-scores, kind="stable")[:limit]]


_cache: weakref.WeakKeyDictionary[Any, PageIndex] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def page_index(corpus: Any, model: str) -> PageIndex | None:
    """The corpus's page index for the vectors of ``model`` (None when the corpus cannot list its passages)."""
    listing = getattr(corpus, "iter_passages", None)
    status_of = getattr(corpus, "embedding_status", None)
    if listing is None or status_of is None:
        return None
    status = status_of(model)
    listed = getattr(corpus, "documents", None)  # a document replaced by as many passages changes its entry
    stamp = (status["passages"], status["embedded"], hash(tuple(listed())) if listed is not None else 0)
    with _lock:
        index = _cache.get(corpus)
        if index is None or index.stamp != stamp:
            index = _build(corpus, model, listing())
            index.stamp = stamp
            _cache[corpus] = index
        return index


def _build(corpus: Any, model: str, passages: Any) -> PageIndex:
    import numpy as np

    pages: dict[tuple[str, str], list[Any]] = {}
    for passage in passages:
        pages.setdefault((passage.path, passage.location.split(" > ")[0]), []).append(passage)
    stored = corpus.vectors_of(model, [p.id for page in pages.values() for p in page])
    rows, kept = [], []
    for page in pages.values():
        found = [stored[p.id] for p in page if p.id in stored]
        if found:
            mean = np.mean(found, axis=0)
            rows.append(mean / (np.linalg.norm(mean) or 1))
            kept.append(page)
    if not rows:  # nothing embedded yet: no page can be near
        return PageIndex([], np.zeros((0, 0), dtype=np.float32))
    return PageIndex(kept, np.asarray(rows, dtype=np.float32))
