"""Pseudo-relevance feedback: the corpus's own words for a topic, taken from the best passages.

A question worded unlike the documentation ("path traversal") still retrieves a few right
passages; the words those passages share and the rest of the pool rarely has ("tarfile",
"outside") are how the documentation says it, and widen the pool (Rocchio-style feedback).
Words are taken from the passages' prose, not their code blocks: the made-up data of an example
("jane", "dave" in a sorting example) is no vocabulary of the topic.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from typing import Protocol

from deepr_mcp.research.passage import Passage
from deepr_mcp.research.reading.terms import GENERIC
from deepr_mcp.text.tokenizer import tokenize

FEEDBACK_DOCS = 5
FEEDBACK_TERMS = 6
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
