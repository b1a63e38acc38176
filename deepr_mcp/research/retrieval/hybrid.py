"""Corpus search by words (FTS5 BM25), by meaning (the embedder's nearest neighbours), or both fused.

Words find the passage that names what the user named; meaning finds the one that says it in
other words ("stop asking for my password" against "credential helper"). Reciprocal rank fusion
adds ``1 / (K + rank)`` from each list, so neither scale (BM25 is unbounded, cosine is not) has
to be calibrated against the other, and a passage high in both lists wins. Meaning's list counts
twice (``MEANING_WEIGHT``): users ask in their own words, which are seldom the documents'. Only passages
embedded so far take part in the semantic list: a corpus still being embedded ranks by words meanwhile.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final, Literal, Protocol, TypeVar, get_args

from deepr_mcp.embedding.base import Embedder
from deepr_mcp.errors import InvalidInput

__all__ = [
    "MEANING_WEIGHT",
    "MODES",
    "RRF_K",
    "HybridSearch",
    "Mode",
    "check_mode",
    "fuse",
    "mode_from_env",
    "rank_fusion",
]

Mode = Literal["lexical", "semantic", "hybrid"]
MODES: Final[tuple[str, ...]] = get_args(Mode)
RRF_K: Final = 60
"""The constant of reciprocal rank fusion (Cormack et al. 2009): damps the weight of the very top ranks."""
MEANING_WEIGHT: Final = 2.0
"""What a rank by meaning counts for in hybrid search, against 1 for a rank by words. Over questions in
users' words, BM25 on the whole question is the weaker list on every bench corpus. Counting meaning
twice raised top-5 gold recall on each of five corpora: on the sets used for decisions from
0.37/0.24/0.48/0.26 to 0.38/0.30/0.50/0.29 (npm, PDF, Python, zsh). On 218 questions never used for
search, checked once after the choice, it went from 0.44/0.48/0.21/0.44/0.23 to
0.45/0.52/0.29/0.45/0.25 (node, npm, PDF, Python, zsh); top-10 rose on every corpus too."""
DEPTH: Final = 50
"""Candidates taken from each list before fusing (at least ``limit``)."""


class Ranked(Protocol):
    """A passage as ranked here (``engine.Passage``, a frozen dataclass): an id and a score."""

    @property
    def id(self) -> str: ...

    @property
    def score(self) -> float: ...


P = TypeVar("P", bound=Ranked)
H = TypeVar("H", bound=Hashable)


class VectorCorpus(Protocol):
    def search(self, query: str, limit: int = 10, *, headings_only: bool = False) -> Sequence[Ranked]: ...

    def nearest(self, model: str, vector: object, limit: int) -> Sequence[Ranked]: ...

    def vectors_of(self, model: str, passage_ids: Sequence[str]) -> Mapping[str, object]: ...


def check_mode(mode: str) -> Mode:
    if mode not in MODES:
        raise InvalidInput(f"unknown retrieval mode {mode!r}; allowed: {', '.join(MODES)}")
    return mode  # type: ignore[return-value]


def mode_from_env(default: str = "hybrid") -> Mode:
    """``DEEPR_RESEARCH_RETRIEVAL`` when set (benches set it), else ``default``."""
    return check_mode(os.environ.get("DEEPR_RESEARCH_RETRIEVAL", default).strip().lower() or default)


def rank_fusion(
    rankings: Sequence[Sequence[H | None]], k: int = RRF_K, weights: Sequence[float] = ()
) -> dict[H, float]:
    """Reciprocal rank fusion's score of each item: ``weight / (k + rank)`` summed over the rankings holding it.

    ``weights`` (one per ranking, 1 when not given) scale what a ranking's ranks add. ``None`` holds a rank
    without giving it to anyone (see ``HybridSearch.stand_ins``). Items appear in the order first seen."""
    scores: dict[H, float] = {}
    for i, ranking in enumerate(rankings):
        weight = weights[i] if i < len(weights) else 1.0
        for rank, item in enumerate(ranking, start=1):
            if item is not None:
                scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores


def fuse(rankings: Sequence[Sequence[P | None]], limit: int, k: int = RRF_K, weights: Sequence[float] = ()) -> list[P]:
    """Reciprocal rank fusion of several rankings (``rank_fusion``); each passage's score becomes its fused score."""
    scores = rank_fusion([[p.id if p is not None else None for p in ranking] for ranking in rankings], k, weights)
    first: dict[str, P] = {}
    for ranking in rankings:
        for passage in ranking:
            if passage is not None:
                first.setdefault(passage.id, passage)
    order = sorted(scores, key=lambda pid: -scores[pid])[:limit]
    return [replace(first[pid], score=round(scores[pid], 6)) for pid in order]  # type: ignore[type-var]


class HybridSearch:
    """One ranking for ``corpus search`` (CLI and tool) and research: lexical, semantic or hybrid."""

    def __init__(self, corpus: VectorCorpus, embedder: Embedder) -> None:
        self.corpus = corpus
        self.embedder = embedder

    @property
    def semantic_enabled(self) -> bool:
        return self.embedder.dimensions > 0

    def semantic(self, queries: Sequence[str], limit: int) -> list[list[Ranked]]:
        """One nearest-neighbour ranking per query (empty when no embedder or nothing embedded yet)."""
        if not self.semantic_enabled or not queries:
            return [[] for _ in queries]
        return self.nearest(self.embedder.embed(list(queries), query=True), limit)

    def nearest(self, vectors: Any, limit: int) -> list[list[Ranked]]:
        """One nearest-neighbour ranking per query vector (a row of ``vectors``)."""
        return [list(self.corpus.nearest(self.embedder.name, v, limit)) for v in vectors]

    def search(self, query: str, limit: int = 10, mode: str = "hybrid", *, also: Sequence[str] = ()) -> list[Ranked]:
        """The ``limit`` best passages for ``query`` (and the other phrasings ``also``), fused by rank."""
        mode = check_mode(mode)
        if not 1 <= limit <= 200:
            raise InvalidInput(f"limit must be 1-200, got {limit}")
        queries = [query, *also]
        depth = max(DEPTH, limit)
        rankings: list[Sequence[Ranked | None]] = []
        weights: list[float] = []
        if mode != "semantic":
            rankings += [self.corpus.search(q, depth) for q in queries]
            weights += [1.0] * len(queries)
        if mode != "lexical":
            rankings += self.semantic(queries, depth)
            weights += [MEANING_WEIGHT] * len(queries)
        if mode == "hybrid" and self.semantic_enabled:
            # a passage not embedded yet keeps its word rank in meaning's place, at meaning's weight
            rankings += self.stand_ins(rankings[: len(queries)])  # type: ignore[arg-type]
            weights += [MEANING_WEIGHT] * len(queries)
        if len(rankings) == 1:
            return [p for p in rankings[0][:limit] if p is not None]
        return fuse(rankings, limit, weights=weights)

    def stand_ins(self, lexical: Sequence[Sequence[Ranked]]) -> list[list[Ranked | None]]:
        """A passage with no vector yet (just added, embedding in the background) has no place among the
        nearest; its word rank stands in for that missing rank, so fusion does not sink new documents
        under older ones that are found both ways."""
        ids = list(dict.fromkeys(p.id for ranking in lexical for p in ranking))
        embedded = set(self.corpus.vectors_of(self.embedder.name, ids)) if ids else set()
        return [[None if p.id in embedded else p for p in ranking] for ranking in lexical]
