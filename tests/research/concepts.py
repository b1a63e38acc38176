"""A toy embedder for tests: what is close in meaning is decided by the test, over a few invented concepts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CONCEPTS = {
    "split": ("crack", "cracking", "split", "splits", "whole"),
    "cool": ("cool", "cools", "slowly", "overnight", "shut"),
    "shelf": ("shelf", "shelves", "stacked", "row"),
}


class ConceptEmbedder:
    """Texts to unit vectors over ``CONCEPTS`` (plus a constant axis), counting what it embeds."""

    name = "concepts@1"
    dimensions = len(CONCEPTS) + 1

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        self.embedded += list(texts)
        rows = []
        for text in texts:
            words = set(text.lower().replace(".", " ").replace("?", " ").split())
            row = [float(bool(words & set(ws))) for ws in CONCEPTS.values()] + [0.3]
            rows.append(np.array(row, dtype=np.float32) / np.linalg.norm(row))
        return np.stack(rows)
