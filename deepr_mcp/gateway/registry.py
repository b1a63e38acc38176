"""The tool catalogue and its BM25 search.

Registering is cheap and search is lazy: the index is rebuilt once, before the first
search after any change, so loading 10,000 tools costs one build, not 10,000.
"""

from __future__ import annotations

import difflib
import math
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from rank_bm25 import BM25Okapi

from deepr_mcp.gateway.spec import SearchHit, ToolSpec
from deepr_mcp.text.tokenizer import expand_query, tokenize

__all__ = ["ToolRegistry"]

NAME_WEIGHT = 3
"""How many times a tool's name tokens count against its description's: names are the
most deliberate words a tool author writes."""


class LuceneBM25(BM25Okapi):
    """BM25Okapi with Lucene's always-positive IDF, ``log(1 + (N - n + 0.5) / (n + 0.5))``.

    Okapi's classic IDF goes negative for a term in more than half the documents, which in a
    small catalogue (or a category word every tool shares) makes a matching tool score below
    zero and vanish from the hits.
    """

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))


def document_tokens(spec: ToolSpec) -> list[str]:
    """Name (weighted), description, and every parameter's name and description."""
    tokens = tokenize(spec.name) * NAME_WEIGHT
    tokens += tokenize(spec.description)
    tokens += tokenize(spec.category)
    for param, body in _properties(spec.input_schema).items():
        tokens += tokenize(param)
        if isinstance(body, dict) and isinstance(body.get("description"), str):
            tokens += tokenize(body["description"])
    return tokens


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}


class ToolRegistry:
    """Named tools plus a BM25 index over their text; safe to share between connections."""

    def __init__(self, specs: Iterable[ToolSpec] = ()) -> None:
        self._specs: dict[str, ToolSpec] = {}
        self._lock = threading.Lock()
        self._index: LuceneBM25 | None = None
        self._order: list[str] = []
        self.register_many(specs)

    def register(self, spec: ToolSpec) -> None:
        """Add or replace a tool; a name must be 1-64 chars of letters, digits, ``_``, ``-``, ``.``."""
        _check_name(spec.name)
        with self._lock:
            self._specs[spec.name] = spec
            self._index = None

    def register_many(self, specs: Iterable[ToolSpec]) -> None:
        specs = list(specs)
        for spec in specs:
            _check_name(spec.name)
        with self._lock:
            for spec in specs:
                self._specs[spec.name] = spec
            self._index = None

    def unregister(self, name: str) -> None:
        with self._lock:
            if self._specs.pop(name, None) is not None:
                self._index = None

    def get(self, name: str) -> ToolSpec | None:
        return self._specs.get(name)

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(sorted(self._specs.values(), key=lambda s: s.name))

    def names(self) -> list[str]:
        return sorted(self._specs)

    def search(self, query: str, limit: int = 3) -> list[SearchHit]:
        """Best ``limit`` tools for ``query``; ties by name so results are deterministic.

        Tools that share no term with the query are never returned, however few hits remain.
        """
        terms = expand_query(tokenize(query))
        if not terms or limit <= 0:
            return []
        index, order = self._ensure_index()
        if index is None:
            return []
        scores = index.get_scores(terms)
        ranked = sorted(
            (i for i, score in enumerate(scores) if score > 0),
            key=lambda i: (-scores[i], order[i]),
        )
        return [SearchHit(order[i], round(float(scores[i]), 4), self._specs[order[i]]) for i in ranked[:limit]]

    def closest_names(self, name: str, limit: int = 3) -> list[str]:
        """Registered names nearest to an unknown one: spelling first, then meaning."""
        names = list(self._specs)
        close = difflib.get_close_matches(name, names, n=limit, cutoff=0.5)
        if len(close) < limit:
            close += [hit.name for hit in self.search(name.replace("_", " "), limit) if hit.name not in close]
        return close[:limit]

    def _ensure_index(self) -> tuple[LuceneBM25 | None, list[str]]:
        with self._lock:
            if self._index is None and self._specs:
                self._order = sorted(self._specs)
                self._index = LuceneBM25([document_tokens(self._specs[n]) or ["_"] for n in self._order])
            return self._index, self._order


def _check_name(name: str) -> None:
    if not (1 <= len(name) <= 64) or not all(c.isascii() and (c.isalnum() or c in "_-.") for c in name):
        raise ValueError(f"invalid tool name {name!r}: use 1-64 characters of letters, digits, '_', '-' or '.'")
