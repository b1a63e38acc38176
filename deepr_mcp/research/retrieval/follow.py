"""How-tos: follow the API names the best passages use to those APIs' own reference entries.

A how-to worded unlike the documentation ("visit every file in subfolders") still retrieves a few
passages that use the right call ("os.walk"); the call's own reference entry rarely shares a word
with the question, so it is fetched by name and ranked at a share of the passage that named it.
A paragraph under an entry's heading names that entry too (a matching note of "os.walk" leads to
the entry's opening), and of an entry's passages the signature with its description comes first.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Protocol, TypeVar

from deepr_mcp.research.passage import Passage, PassageSearch

FOLLOW_DOCS = 8
"""How-tos: the best passages whose code names are followed to their own reference entries."""
FOLLOW_NAMES = 5
FOLLOW_HITS = 2
"""Passages taken per followed entry (its signature and first paragraphs)."""
FOLLOW_SHARE = 0.9
"""A followed reference entry ranks at this share of the best passage that named it."""
API_NAME = re.compile(r"(?<![\w.])([A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+)\b(?!\.\w)")
"""A dotted API name ("os.walk", "shutil.copy2"); one-letter parts are example variables ("t.tzname", "e.g")."""


class Followed(Protocol):
    passage: Passage
    terms: Counter[str]
    heading: set[str]
    score: float


C = TypeVar("C", bound=Followed)


def follow_names(
    corpus: PassageSearch, pool: dict[str, C], weights: dict[str, float], make: Callable[..., C], asked: str = ""
) -> None:
    """Add to ``pool`` the reference entries of the APIs its best passages name (``make`` turns a
    corpus hit into a candidate), each scored at ``FOLLOW_SHARE`` of the passages that named it.

    A name whose parts the question writes itself (``asked``: "a timeout in asyncio" writes
    ``asyncio.timeout``) was searched already. A name whose words only look like the question's
    ("os.environ" for "environment variable": both stem to "environ") is still followed: its entry
    is the likeliest answer to a question worded in plain English.
    """
    best = sorted(pool.values(), key=lambda c: -c.score)[:FOLLOW_DOCS]
    written = set(re.findall(r"\w+", asked.lower()))
    named: dict[str, float] = {}
    under: dict[str, set[str]] = {}
    for candidate in best:
        # the entry a paragraph belongs to counts as named by it: a later paragraph of "os.walk" that
        # matches the question leads to the entry's own opening ("Generate the file names ...")
        entry = candidate.passage.location.rsplit(" > ", 1)[-1].strip()
        own = [entry] if API_NAME.fullmatch(entry) else []
        if own:  # (never to itself: a passage does not lift its own score by naming its own entry)
            under.setdefault(entry, set()).add(candidate.passage.id)
        for name in dict.fromkeys([*own, *API_NAME.findall(candidate.passage.text)]):
            if not set(name.lower().split(".")) <= written:
                named[name] = named.get(name, 0.0) + candidate.score
    top = max((c.score for c in best), default=0.0)
    for name, score in sorted(named.items(), key=lambda item: -item[1])[:FOLLOW_NAMES]:
        owner, short = name.lower().split(".", 1)[0], name.rsplit(".", 1)[-1].lower()
        entries = []
        for hit in corpus.search_passages(name, 10, headings_only=True):
            location = hit.location.lower()
            entry = location.rsplit(" > ", 1)[-1]
            # the entry of this very API: its full name, or its short name on its module's page
            if entry == name.lower() or (entry.endswith(short) and location.startswith(owner)):
                if not _bare_signature(hit.text) and hit.id not in under.get(name, ()):
                    entries.append(hit)
        # the entry's signature with its description first ("`os.environ` A mapping object ..."): a
        # later paragraph of the same entry may be only a version note
        entries.sort(key=lambda hit: not _opens_with_signature(hit.text, short))
        for hit in entries[:FOLLOW_HITS]:
            candidate = pool.get(hit.id) or make(hit)
            pool[hit.id] = candidate
            # an entry that also speaks of the question's words is the likelier answer
            said = sum(w for t, w in weights.items() if t in candidate.terms or t in candidate.heading)
            share = said / (sum(weights.values()) or 1.0)
            candidate.score = max(candidate.score, FOLLOW_SHARE * min(score, top) * (0.5 + share))


def _opens_with_signature(text: str, short: str) -> bool:
    """Whether a passage is an API's signature line (`` `os.environ` ``, `` `copy2(src, dst)` ``) followed
    by its description; a bare signature line says nothing a reader can use."""
    first, _, rest = text.strip().partition("\n")
    return first.startswith("`") and short in first.lower() and len(rest.split()) >= 5


def _bare_signature(text: str) -> bool:
    """A passage that is only a signature line (`` `csv.reader(csvfile, dialect='excel')` ``): its
    description is the entry's next passage, which is the one worth following."""
    first, _, rest = text.strip().partition("\n")
    return first.startswith("`") and len(rest.split()) < 5
