"""Diversity among evidence: passages that add something the others do not say (MMR)."""

from __future__ import annotations

from collections import Counter
from typing import Protocol, TypeVar

MMR_LAMBDA = 0.72


class Scored(Protocol):
    terms: Counter[str]
    score: float


C = TypeVar("C", bound=Scored)


def similarity(a: Counter[str], b: Counter[str]) -> float:
    """Jaccard similarity of two passages' term sets."""
    sa, sb = a.keys(), b.keys()
    union = len(sa | sb)
    return len(sa & sb) / union if union else 0.0


def mmr(ranked: list[C], k: int, lam: float = MMR_LAMBDA) -> list[C]:
    """Maximal marginal relevance: each pick trades relevance against likeness to those picked."""
    if not ranked:
        return []
    top = ranked[0].score or 1.0
    chosen: list[C] = []
    left = list(ranked)
    while left and len(chosen) < k:
        best = max(
            left,
            key=lambda c: (
                lam * c.score / top - (1 - lam) * max((similarity(c.terms, s.terms) for s in chosen), default=0)
            ),
        )
        if chosen and max(similarity(best.terms, s.terms) for s in chosen) > 0.9:
            left.remove(best)  # a copy of a passage already chosen says nothing new
            continue
        chosen.append(best)
        left.remove(best)
    return chosen
