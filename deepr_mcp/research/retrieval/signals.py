"""Evidence signals beyond BM25 that come from the question's structure.

A comparison ("Should I fire the kiln with gas or with wood?") is answered where the documentation
speaks of both sides at once ("gas gives an even heat; wood leaves ash that glazes the pots").
Word-overlap scoring ranks each side's own pages above that passage: twenty paragraphs under the
heading "Wood firing" each match "wood" and "firing" through their heading. So a
sub-question that names both sides prefers passages that cover both sides, each side counted by
the words that tell it from the other ("gas", "wood"; not the shared "firing").

Any question: BM25 sums per-term scores, so a passage repeating one rare term of the question
("GLAZE", "glaze recipe") outranks one that holds all of "cool a glazed pot without cracking it".
The coordination factor of classic vector-space ranking (the share of the query's terms a document
matches, as Lucene's ``coord``) scales the score by that share, softened by a square root.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

from deepr_mcp.research.reading.terms import GENERIC
from deepr_mcp.text.tokenizer import tokenize

COVER_BOOST = 1.3
"""A passage covering every compared side, for a sub-question that names them all."""


def sides(entities: Sequence[str]) -> list[frozenset[str]]:
    """The distinctive terms of each compared side: its terms minus those every side has.

    Empty when fewer than two sides have a distinctive term (nothing to tell them apart by).
    """
    sets = [{t for t in tokenize(e) if t not in GENERIC} for e in entities]
    if len(sets) < 2:
        return []
    shared = set.intersection(*sets)
    out = [frozenset(s - shared) for s in sets]
    return out if all(out) else []


def names_all(text: str, compared: Sequence[frozenset[str]]) -> bool:
    """Whether ``text`` names every side (a side is named by any of its distinctive terms)."""
    words = set(tokenize(text))
    return len(compared) >= 2 and all(side & words for side in compared)


def covered(words: Collection[str], compared: Sequence[frozenset[str]]) -> int:
    """How many sides these terms (the caller passes a passage's body terms) speak of."""
    return sum(1 for side in compared if any(t in words for t in side))


COORD_POWER = 0.5
"""The square root: half the terms keep 71% of the score (the plain share, 1.0, lost two right answers)."""
COORD_MIN_WEIGHT = 0.5
"""Terms weighted below this (generic question words, feedback words) are optional for coordination."""


def coordination(weights: dict[str, float], words: Collection[str]) -> float:
    """Weighted share of the query's main terms a passage holds (the coordination factor of classic
    vector-space ranking): BM25 adds per-term scores, so one rare term repeated ("TIMESTAMP") outranks
    a passage that holds every term of "cool a glazed pot without cracking it"."""
    main = {t: w for t, w in weights.items() if w >= COORD_MIN_WEIGHT}
    total = math.fsum(main.values())  # exactly rounded, whatever order the terms come in
    if not total:
        return 1.0
    return math.fsum(w for t, w in main.items() if t in words) / total
