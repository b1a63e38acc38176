"""Sentence embeddings: one ``Embedder`` Protocol, the packaged local default beside it.

Research retrieval (the corpus's dense index) and anything else that ranks by meaning share one
embedder per process, made from the settings by :func:`make_embedder`.
"""

from deepr_mcp.embedding.base import Embedder, NoEmbedder
from deepr_mcp.embedding.factory import EMBEDDER_HELP, make_embedder, shared_embedder

__all__ = ["EMBEDDER_HELP", "Embedder", "NoEmbedder", "make_embedder", "shared_embedder"]
