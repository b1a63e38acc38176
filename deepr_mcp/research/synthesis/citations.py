"""Citation markers in cited text: ``[n]`` found, checked against the passages, and cut into claims.

Every provider writes them and synthesis reads them, so they live in the stage that reads them.
"""

from __future__ import annotations

import re

CITE = re.compile(r"\[(\d+)\]")


def citations_in(text: str) -> list[int]:
    return [int(n) for n in CITE.findall(text)]


def strip_unknown_citations(text: str, known: set[int]) -> str:
    """Remove ``[n]`` markers that resolve to no passage, so every citation in a report is real."""
    return CITE.sub(lambda m: m.group(0) if int(m.group(1)) in known else "", text)


_CITED_SEGMENT = re.compile(r".*?(?:\s*\[\d+\])+|.+$", re.S)


def split_sentences(text: str) -> list[str]:
    """A cited paragraph cut after each run of ``[n]`` markers: each piece is a claim with its citations.

    A claim of two sentences ("Never do X. It can cause Y. [2]") stays one piece, because its
    citation covers both.
    """
    flat = " ".join(text.split())
    return [m.group(0).strip() for m in _CITED_SEGMENT.finditer(flat) if m.group(0).strip()]
