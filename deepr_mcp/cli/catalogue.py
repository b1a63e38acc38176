"""The tool catalogue ranked by meaning for a one-shot command, as the server ranks it."""

from __future__ import annotations

from typing import Final

from deepr_mcp.config import Settings
from deepr_mcp.embedding.factory import shared_embedder
from deepr_mcp.gateway.registry import ToolRegistry
from deepr_mcp.gateway.tool_model import tool_embedder
from deepr_mcp.gateway.vectors import ToolVectors

EMBED_WAIT_S: Final = 600.0
"""How long a one-shot command waits for the catalogue's vectors (seconds; a few are needed)."""


def embed_catalogue(registry: ToolRegistry, settings: Settings) -> None:
    """Rank ``registry`` by meaning as the server does: the same embedder and vector cache, embedded now.

    For a command that searches once (``deepr-mcp tools search``): it waits for what is not cached yet
    (the first run embeds the catalogue, a few seconds; later runs read the cache the server keeps).
    """
    embedder = tool_embedder(shared_embedder(settings.research.embedder))
    if embedder.dimensions <= 0:
        return
    vectors = ToolVectors(embedder, settings.data_dir / "tool-vectors")
    registry.use_vectors(vectors)
    vectors.wait_idle(timeout=EMBED_WAIT_S)
    vectors.close()
