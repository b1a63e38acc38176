"""A follow-up question's vector, leaning on the question before it.

"How hot does that shelf get?" means nothing alone: after "Where should I put the cone pack in the
kiln?" it asks about the shelf the cones sit on. Embedding the two clauses as one text lets the longer,
earlier one outweigh the part actually asked (measured on the bench: a part asking when a file last changed
was searched for as a question about its size); adding the earlier clause's vector at a share keeps the
part first and its referent near.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from deepr_mcp.embedding.base import Embedder

CONTEXT_SHARE = 1.0
"""The earlier clause's vector's weight beside the part's own (each a unit vector) before renormalising."""


def queries_in_context(embedder: Embedder, queries: Sequence[str], context: str = "") -> np.ndarray:
    """Query vectors for ``queries``; with ``context``, the first one leans on it (the others are phrasings of
    the whole question, which need none)."""
    vectors = np.array(embedder.embed(list(queries), query=True), dtype=np.float32, copy=True)
    if context and len(vectors) and embedder.dimensions > 0:
        mixed = vectors[0] + CONTEXT_SHARE * embedder.embed([context], query=True)[0]
        norm = float(np.linalg.norm(mixed))
        if norm > 0:
            vectors[0] = mixed / norm
    return vectors
