"""Pseudo-relevance feedback: the corpus's own words for a topic, and its own meaning, taken from the best passages.

A question worded unlike the documentation ("path traversal") still retrieves a few right
passages; the words those passages share and the rest of the pool rarely has ("tarfile",
"outside") are how the documentation says it, and widen the pool (Rocchio-style feedback).
Words are taken from the passages' prose, not their code blocks: the made-up data of an example
("jane", "dave" in a sorting example) is no vocabulary of the topic. By meaning, the question's vector moves
toward the best passages' vectors (``shifted_query``): they say the topic in the documentation's words.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any, Protocol

import numpy as np

from deepr_mcp.research.passage import Passage
from deepr_mcp.research.reading.terms import GENERIC
from deepr_mcp.text.tokenizer import tokenize

FEEDBACK_DOCS = 5
FEEDBACK_TERMS = 6
FEEDBACK_VECTORS = 3
"""The best candidates whose vectors the question's moves toward (``shifted_query``)."""
FEEDBACK_SHIFT = 1.0
"""How far it moves: their mean vector counts as much as the question's own (Rocchio's beta over alpha)."""
_FENCE = re.compile(r"^```[^\n]*\n.*?^```[ \t]*$", re.S | re.M)
"""A fenced code block, left out where feedback words are taken."""


class Ranked(Protocol):
    passage: Passage
    terms: Counter[str]
    score: float


def feedback_terms(pool: Iterable[Ranked], weights: dict[str, float]) -> list[str]:
    """Words of the best passages that the rest of the pool rarely has, as the passages spell them.

    No stop list beyond the tokenizer's: a word the whole corpus uses ("value", "default") is as common
    in the rest of the pool as in its best passages, so the ratio of the two shares leaves it out."""
    ranked = sorted(pool, key=lambda c: -c.score)
    top, rest = ranked[:FEEDBACK_DOCS], ranked[FEEDBACK_DOCS:]
    if len(top) < 2:
        return []
    in_top = Counter(t for c in top for t in c.terms)
    in_rest = Counter(t for c in rest for t in c.terms)
    words: dict[str, str] = {}
    for c in top:
        for raw in re.findall(r"[A-Za-z_]\w+", _FENCE.sub(" ", c.passage.text)):
            words.setdefault(tokenize(raw)[0] if tokenize(raw) else "", raw.lower())
    scored = []
    for term, count in in_top.items():
        if term in weights or term in GENERIC or len(term) < 4 or count < 2 or term.isdigit():
            continue
        share_top, share_rest = count / len(top), (in_rest[term] + 0.5) / (len(rest) + 1)
        scored.append((share_top * math.log(1 + share_top / share_rest), term))
    scored.sort(reverse=True)
    return [words.get(t, t) for _, t in scored[:FEEDBACK_TERMS] if t in words]


def shifted_query(query: Any, best: list[Any], shift: float = FEEDBACK_SHIFT) -> Any | None:
    """``query`` (a unit vector) moved toward the mean of ``best`` (the vectors of the passages retrieval ranks
    first), renormalised: Rocchio feedback by meaning. The question is in the user's words and its vector sits
    where such words do; the passages that answer sit nearer the ones already found, which speak of the topic in
    the documentation's words. None with fewer than two vectors: one passage is no consensus to move toward."""
    if len(best) < 2:
        return None
    moved = np.asarray(query, dtype=np.float32) + shift * np.mean(np.stack(best), axis=0)
    norm = float(np.linalg.norm(moved))
    return moved / norm if norm > 0 else None
