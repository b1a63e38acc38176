"""The tool catalogue and its BM25 search.

Registering is cheap and search is lazy: the index is rebuilt once, before the first
search after any change, so loading 10,000 tools costs one build, not 10,000.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from deepr_mcp.gateway.index import BM25Index
from deepr_mcp.gateway.spec import SearchHit, ToolSpec
from deepr_mcp.text.tokenizer import expand_query, tokenize

__all__ = ["DESTRUCTIVE_WORDS", "ToolRegistry"]

NAME_WEIGHT = 3
"""How many times a tool's name tokens count against its description's: names are the
most deliberate words a tool author writes."""

DESTRUCTIVE_WORDS = frozenset(
    tokenize(
        "delete remove drop erase purge destroy wipe cancel kill abort stop halt terminate overwrite replace "
        "reset clear uninstall revoke forget discard trash unlink truncate rm del unshare"
    )
)
"""Stems of verbs that ask for something to be destroyed or ended; a query with none of them
is a read or create request, and destructive tools step back in its ranking."""

DESTRUCTIVE_DAMPING = 0.7
"""A destructive tool's score multiplier for a query without a destructive verb: enough that a
read-only tool of similar score comes first, not so much that a clearly better match drops out."""


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


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """One consistent build: the index, its tools in name order, and the per-tool arrays ranking uses."""

    index: BM25Index
    specs: list[ToolSpec]
    calm: np.ndarray
    """Score multiplier per tool for a query without a destructive verb."""
    groups: dict[str, tuple[dict[str, int], np.ndarray]]
    """"category" | "source" -> (value -> code, each tool's code), for filtering without a loop."""

    @classmethod
    def build(cls, specs: list[ToolSpec]) -> _Snapshot:
        index = BM25Index([document_tokens(spec) or ["_"] for spec in specs])
        calm = np.array(
            [DESTRUCTIVE_DAMPING if s.annotations is not None and s.annotations.may_destroy else 1.0 for s in specs]
        )
        groups = {}
        for attr in ("category", "source"):
            codes: dict[str, int] = {}
            column = np.array([codes.setdefault(getattr(s, attr), len(codes)) for s in specs], dtype=np.int32)
            groups[attr] = (codes, column)
        return cls(index, specs, calm, groups)

    def mask(self, attr: str, value: str) -> np.ndarray | None:
        codes, column = self.groups[attr]
        code = codes.get(value)
        return None if code is None else column == code


class ToolRegistry:
    """Named tools plus a BM25 index over their text; safe to share between connections."""

    def __init__(self, specs: Iterable[ToolSpec] = ()) -> None:
        self._specs: dict[str, ToolSpec] = {}
        self._lock = threading.Lock()
        self._snapshot: _Snapshot | None = None
        self.register_many(specs)

    def register(self, spec: ToolSpec) -> None:
        """Add or replace a tool; a name must be 1-64 chars of letters, digits, ``_``, ``-``, ``.``."""
        _check_name(spec.name)
        with self._lock:
            self._specs[spec.name] = spec
            self._snapshot = None

    def register_many(self, specs: Iterable[ToolSpec]) -> None:
        specs = list(specs)
        for spec in specs:
            _check_name(spec.name)
        with self._lock:
            for spec in specs:
                self._specs[spec.name] = spec
            self._snapshot = None

    def unregister(self, name: str) -> None:
        with self._lock:
            if self._specs.pop(name, None) is not None:
                self._snapshot = None

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

    def categories(self) -> list[str]:
        return sorted({s.category for s in list(self._specs.values())})

    def sources(self) -> list[str]:
        return sorted({s.source for s in list(self._specs.values())})

    def search(
        self, query: str, limit: int = 3, *, category: str | None = None, source: str | None = None
    ) -> list[SearchHit]:
        """Best ``limit`` tools for ``query``, optionally only of one ``category`` or ``source``.

        Ties go by name so results are deterministic. Tools that share no term with the query are
        never returned, however few hits remain. Unless the query asks to destroy or end something
        (``DESTRUCTIVE_WORDS``), tools whose annotations say they may destroy score
        ``DESTRUCTIVE_DAMPING`` times less, so "find documents" reaches a search before a removal.
        """
        tokens = tokenize(query)
        terms = expand_query(tokens)
        if not terms or limit <= 0:
            return []
        snap = self._ensure_index()
        if snap is None:
            return []
        scores = snap.index.scores(terms)
        if DESTRUCTIVE_WORDS.isdisjoint(tokens):
            scores *= snap.calm
        for attr, value in (("category", category), ("source", source)):
            if value is not None:
                mask = snap.mask(attr, value)
                if mask is None:
                    return []
                scores = np.where(mask, scores, 0.0)
        found = np.flatnonzero(scores > 0)
        if found.size > limit:  # keep everything tied with the limit-th best, then order exactly
            kth = np.partition(scores[found], found.size - limit)[found.size - limit]
            found = found[scores[found] >= kth]
        ranked = found[np.lexsort((found, -scores[found]))][:limit]  # name order breaks ties
        return [SearchHit(snap.specs[i].name, round(float(scores[i]), 4), snap.specs[i]) for i in ranked]

    def closest_names(self, name: str, limit: int = 3) -> list[str]:
        """Registered names nearest to an unknown one: spelling first, then meaning."""
        names = list(self._specs)
        close = difflib.get_close_matches(name, names, n=limit, cutoff=0.5)
        if len(close) < limit:
            close += [hit.name for hit in self.search(name.replace("_", " "), limit) if hit.name not in close]
        return close[:limit]

    def _ensure_index(self) -> _Snapshot | None:
        with self._lock:
            if self._snapshot is None and self._specs:
                self._snapshot = _Snapshot.build([self._specs[n] for n in sorted(self._specs)])
            return self._snapshot


def _check_name(name: str) -> None:
    if not (1 <= len(name) <= 64) or not all(c.isascii() and (c.isalnum() or c in "_-.") for c in name):
        raise ValueError(f"invalid tool name {name!r}: use 1-64 characters of letters, digits, '_', '-' or '.'")
