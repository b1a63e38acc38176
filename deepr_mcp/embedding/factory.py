"""The embedder a setting names, made once per process (one model in memory, however many users)."""

from __future__ import annotations

import importlib
import threading
from typing import Final

from deepr_mcp.embedding.base import Embedder, NoEmbedder
from deepr_mcp.errors import InvalidInput

__all__ = ["EMBEDDER_HELP", "make_embedder", "shared_embedder"]

EMBEDDER_HELP: Final = (
    "minilm (default: the packaged all-MiniLM-L6-v2 int8 ONNX model, CPU, no download), none (words only), "
    "or 'package.module:factory' naming your own Embedder (a bigger local model or an embeddings API): "
    "a callable returning an object with name, dimensions and embed(texts, query=False)"
)

_lock = threading.Lock()
_made: dict[str, Embedder] = {}


def make_embedder(spec: str) -> Embedder:
    """A new embedder for ``spec`` (see ``EMBEDDER_HELP``); the model itself loads on first use."""
    key = spec.strip()
    if key.lower() == "minilm":
        from deepr_mcp.embedding.minilm import MiniLM

        return MiniLM()
    if key.lower() == "none":
        return NoEmbedder()
    module_name, _, attr = key.partition(":")
    if not module_name or not attr:
        raise InvalidInput(f"unknown embedder {spec!r}; allowed: {EMBEDDER_HELP}")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise InvalidInput(f"embedder {spec!r} cannot be imported ({exc}); allowed: {EMBEDDER_HELP}") from None
    embedder = factory()
    if not isinstance(embedder, Embedder) or not embedder.name or embedder.dimensions < 1:
        raise InvalidInput(f"embedder {spec!r} gave {type(embedder).__name__}, not an Embedder; {EMBEDDER_HELP}")
    return embedder


def shared_embedder(spec: str) -> Embedder:
    """The process's one embedder for ``spec``: research, corpus search and the server share its model."""
    key = spec.strip().lower() if ":" not in spec else spec.strip()
    with _lock:
        if key not in _made:
            _made[key] = make_embedder(spec)
        return _made[key]
