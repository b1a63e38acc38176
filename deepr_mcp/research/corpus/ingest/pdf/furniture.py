"""Page furniture: running headers and footers, page numbers, contents and index pages.

Nothing here knows a word of any manual. A running header is a top or bottom line that comes back
on several pages once its numbers are ignored, or that carries the page's own number (page labels
run at a fixed offset from the page index, learned from the document). A contents or index page
is one whose lines mostly end in page references, with dot leaders or comma lists.
"""

from __future__ import annotations

import re
from collections import Counter

from deepr_mcp.research.corpus.ingest.pdf.extract import Line

_ROMAN = re.compile(r"^[ivxlcdm]+$", re.I)
_NUMBER = re.compile(r"\d+")
LEADER = re.compile(r"(?:\.\s?){4,}\s*\d+\s*$")
_PAGE_REFS = re.compile(r"^\D.*?[\s,]\d{1,4}(?:\s*[,\u2013-]\s*\d{1,4})*\s*$")
REPEATS = 3
"""A top or bottom line with a number, seen on this many pages (numbers masked), is a running header."""
UNNUMBERED_SHARE = 0.25
REFERENCE_SHARE = 0.6
LEADER_SHARE = 0.3


def _key(text: str) -> str:
    words = ["#" if _ROMAN.match(w) else w for w in _NUMBER.sub("#", text).split()]
    return " ".join(words)


def _edges(page: list[Line]) -> list[Line]:
    """The top-most and bottom-most lines of a page (where headers and footers are drawn)."""
    if not page:
        return []
    top = max(page, key=lambda line: line.y)
    bottom = min(page, key=lambda line: line.y)
    return [top] if top is bottom else [top, bottom]


def _label_offset(pages: list[list[Line]]) -> int | None:
    """The most common (number on an edge line) minus (page index): how page labels are numbered."""
    offsets: Counter[int] = Counter()
    for index, page in enumerate(pages):
        for line in _edges(page):
            words = line.text.split()
            for word in {words[0], words[-1]} if words else set():
                if word.isdigit():
                    offsets[int(word) - index] += 1
    if not offsets:
        return None
    offset, count = offsets.most_common(1)[0]
    return offset if count >= 2 else None


def drop_furniture(pages: list[list[Line]]) -> list[list[Line]]:
    """Pages without their running headers, footers and page numbers."""
    seen: Counter[str] = Counter()
    for page in pages:
        for key in {_key(line.text) for line in _edges(page)}:
            seen[key] += 1
    repeats = REPEATS if len(pages) > REPEATS else 2
    offset = _label_offset(pages)
    out = []
    for index, page in enumerate(pages):
        furniture = set()
        for line in _edges(page):
            words = line.text.split()
            own_number = offset is not None and str(index + offset) in (words[0], words[-1])
            key = _key(line.text)
            # a numberless line must repeat on a quarter of the pages: "Syntax:" can end ten pages
            repeated = seen[key] >= (repeats if "#" in key else max(repeats, UNNUMBERED_SHARE * len(pages)))
            if key == "#" or repeated or own_number:
                furniture.add(id(line))
        out.append([line for line in page if id(line) not in furniture])
    return out


def is_reference_page(page: list[Line]) -> bool:
    """A contents or index page: most lines end in page numbers (dot leaders or comma lists).

    Code lines are left out of the count: a page of commands that end in numbers is not an index.
    """
    lines = [line.text for line in page if line.text.strip() and not line.mono]
    if len(lines) < 4:
        return False
    leaders = sum(1 for text in lines if LEADER.search(text))
    references = sum(1 for text in lines if _PAGE_REFS.match(text))
    return leaders >= LEADER_SHARE * len(lines) or references >= REFERENCE_SHARE * len(lines)
