"""FTS5 query text built from words only, so nothing a user types can be FTS5 syntax."""

from __future__ import annotations

import re

from deepr_mcp.text.tokenizer import STOP_WORDS

MAX_QUERY_TERMS = 32


def match_expression(query: str, *, headings_only: bool = False) -> str | None:
    """Quoted words joined by OR (at most 32, stop words left out); ``None`` when no word is left.

    ``headings_only`` restricts the match to the heading path (page title and section names).
    """
    words = [w for w in re.findall(r"\w+", query.lower()) if w not in STOP_WORDS]
    unique = list(dict.fromkeys(words))[:MAX_QUERY_TERMS]
    if not unique:
        return None
    expression = " OR ".join(f'"{w}"' for w in unique)
    return f"location : ({expression})" if headings_only else expression


def phrase_tokens(text: str) -> str:
    """``text`` as the index's word tokens, lower case, one space apart: "API's Docs" -> "api s docs"."""
    return " ".join(re.findall(r"\w+", text.lower()))


def phrase_expression(words: list[str]) -> str | None:
    """An FTS5 phrase: the words next to each other, in order (``None`` without a word)."""
    tokens = phrase_tokens(" ".join(words))
    return f'"{tokens}"' if tokens else None
