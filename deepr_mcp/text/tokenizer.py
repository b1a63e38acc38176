"""Turn tool names, descriptions and user queries into comparable search terms.

The naive ``text.lower().split()`` keeps ``campaign_start`` as one opaque token, so the
query "start a research campaign" never matches it. Here identifiers are split on
snake_case, camelCase and punctuation, stop words are dropped, and words are reduced to
their Snowball stem, so "campaigns", "starting" and ``campaignStart`` meet in the middle.

Shared by the gateway's tool search and research (question terms, corpus stop words), so both
sides of a match are cut the same way.
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

__all__ = ["STOP_WORDS", "expand_query", "tokenize"]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)

STOP_WORDS = frozenset(
    """a an and are as at be by can do does for from get got has have how i if in into is it its
    me my of on or our please should so some that the their them then there these this those to
    up us was we what when where which who why will with would you your want need let lets did done
    been being am were could shall may might must than too very just also such only own same other
    any each both few more most much many its itself they he she him her his hers about after before
    over under again further once here all""".split()
)

# Words users type for the same action, as plain words (stemmed at import); applied to
# queries only, so the tool text stays as written.
_SYNONYM_WORDS: dict[str, tuple[str, ...]] = {
    "begin": ("start",),
    "kick": ("start",),
    "launch": ("start",),
    "run": ("start",),
    "new": ("start", "create"),
    "make": ("create",),
    "stop": ("cancel", "pause"),
    "abort": ("cancel",),
    "halt": ("cancel",),
    "kill": ("cancel",),
    "continue": ("resume",),
    "restart": ("resume",),
    "investigate": ("research",),
    "investigation": ("research",),
    "study": ("research",),
    "job": ("campaign",),
    "progress": ("status",),
    "state": ("status",),
    "spend": ("cost", "budget"),
    "money": ("cost", "budget"),
    "price": ("cost",),
    "dollars": ("cost", "budget"),
    "find": ("search", "belief"),
    "look": ("search",),
    "lookup": ("search",),
    "file": ("sandbox",),
    "folder": ("sandbox",),
    "document": ("corpus",),
    "docs": ("corpus",),
    "summary": ("report",),
    "summarize": ("report",),
    "result": ("report",),
    "answer": ("report", "query"),
    "ask": ("query",),
    "remove": ("delete",),
    "erase": ("delete",),
    "follow": ("wait",),
    "watch": ("wait", "subscribe"),
    "approve": ("budget", "decide"),
    "findings": ("beliefs",),
    "claims": ("beliefs",),
    "facts": ("beliefs",),
    "citations": ("sources",),
    "cite": ("sources",),
    "references": ("sources",),
    "specialist": ("expert",),
    "knowledge": ("expert",),
    "missing": ("gaps",),
    "unknowns": ("gaps",),
}

_stemmer = Stemmer.Stemmer("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer.stemWord(word)


def tokenize(text: str) -> list[str]:
    """Split, lower-case, drop stop words and stem; order and repeats are kept for BM25."""
    out: list[str] = []
    for raw in _WORD.findall(_CAMEL.sub(" ", text)):
        word = raw.lower()
        if word in STOP_WORDS:
            continue
        out.append(_stem(word))
    return out


_SYNONYMS: dict[str, tuple[str, ...]] = {
    _stem(word): tuple(_stem(s) for s in synonyms) for word, synonyms in _SYNONYM_WORDS.items()
}


def expand_query(tokens: list[str]) -> list[str]:
    """Add the action words a user's phrasing usually means, after the original tokens."""
    extra = [syn for token in tokens for syn in _SYNONYMS.get(token, ()) if syn not in tokens]
    return tokens + extra
