"""Small deterministic embedders for registry tests that are about fusion, not about a model's quality."""

from __future__ import annotations

import threading

import numpy as np


class Counting:
    """A text's vector is its letter counts: cheap and deterministic, so tests need no model."""

    name = "letters@test"
    dimensions = 26

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        rows = np.zeros((len(texts), 26), dtype=np.float32)
        for i, text in enumerate(texts):
            for c in text.lower():
                if "a" <= c <= "z":
                    rows[i, ord(c) - 97] += 1
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)


class Gated(Counting):
    """Embeds queries at once, but tools only once ``release`` is set: a tool stays 'not embedded yet'."""

    name = "letters-gated@test"

    def __init__(self) -> None:
        self.release = threading.Event()

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        if not query:
            assert self.release.wait(120), "the test never released the embedder"
        return super().embed(texts, query=query)
