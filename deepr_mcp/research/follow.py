"""How-tos: follow the API names the best passages use to those APIs' own reference entries.

A how-to worded unlike the documentation ("visit every file in subfolders") still retrieves a few
passages that use the right call ("os.walk"); the call's own reference entry rarely shares a word
with the question, so it is fetched by name and ranked at a share of the passage that named it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from deepr_mcp.text.tokenizer import tokenize

FOLLOW_DOCS = 8
"""How-tos: the best passages whose code names are followed to their own reference entries."""
FOLLOW_NAMES = 5
FOLLOW_HITS = 2
"""Passages taken per followed entry (its signature and first paragraphs)."""
FOLLOW_SHARE = 0.9
"""A followed reference entry ranks at this share of the best passage that named it."""
API_NAME = re.compile(r"(?<![\w.])([A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+)\b(?!\.\w)")
"""A dotted API name ("os.walk", "shutil.copy2"); one-letter parts are example variables ("t.tzname", "e.g")."""


class _Passage(Protocol):
    id: str
    text: str
    location: str


class Followed(Protocol):
    passage: _Passage
    terms: Counter[str]
    heading: set[str]
    score: float


C = TypeVar("C", bound=Followed)


class _Search(Protocol):
    def search_passages(self, query: str, limit: int, *, headings_only: bool = False) -> Sequence[_Passage]: ...


def follow_names(corpus: _Search, pool: dict[str, C], weights: dict[str, float], make: Callable[..., C]) -> None:
    """Add to ``pool`` the reference entries of the APIs its best passages name (``make`` turns a
    corpus hit into a candidate), each scored at ``FOLLOW_SHARE`` of the passages that named it."""
    best = sorted(pool.values(), key=lambda c: -c.score)[:FOLLOW_DOCS]
    named: dict[str, float] = {}
    for candidate in best:
        for name in dict.fromkeys(API_NAME.findall(candidate.passage.text)):
            if not set(tokenize(name)) <= weights.keys():
                named[name] = named.get(name, 0.0) + candidate.score
    top = max((c.score for c in best), default=0.0)
    for name, score in sorted(named.items(), key=lambda item: -item[1])[:FOLLOW_NAMES]:
        owner, short = name.lower().split(".", 1)[0], name.rsplit(".", 1)[-1].lower()
        found = 0
        for hit in corpus.search_passages(name, 10, headings_only=True):
            location = hit.location.lower()
            entry = location.rsplit(" > ", 1)[-1]
            # the entry of this very API: its full name, or its short name on its module's page
            if entry != name.lower() and not (entry.endswith(short) and location.startswith(owner)):
                continue
            candidate = pool.get(hit.id) or make(hit)
            pool[hit.id] = candidate
            # an entry that also speaks of the question's words is the likelier answer
            said = sum(w for t, w in weights.items() if t in candidate.terms or t in candidate.heading)
            share = said / (sum(weights.values()) or 1.0)
            candidate.score = max(candidate.score, FOLLOW_SHARE * min(score, top) * (0.5 + share))
            found += 1
            if found == FOLLOW_HITS:
                break
