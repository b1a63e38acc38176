"""What an embedder is to the rest of deepr-mcp: texts in, unit vectors out, under a stable name.

The name (model and version) is stored with every vector, so vectors of another model are never
mixed into one index: changing the model leaves the old vectors unused until they are rebuilt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Embedder", "NoEmbedder"]


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalised float32 rows (``len(texts) x dimensions``); cosine = dot product.

    ``embed`` is synchronous and may be slow (model inference): call it from a worker thread.
    Implementations are safe to call from several threads. ``query=True`` marks search queries,
    for models that encode queries and passages differently (the default treats them alike).
    """

    name: str
    """Model id and version, e.g. ``all-MiniLM-L6-v2-int8@1.0.0``: recorded with each stored vector."""
    dimensions: int
    # optional, not part of the protocol: ``answer_cosine: float``, the cosine at which the model puts a passage
    # that answers a question (``research.synthesis.meaning.answer_cosine`` reads it; MiniLM declares 0.40)

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray: ...


class NoEmbedder:
    """Retrieval by words alone (``research.embedder = "none"``): no model is loaded, nothing embedded."""

    name = "none"
    dimensions = 0

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        import numpy as np

        return np.zeros((len(texts), 0), dtype=np.float32)
