"""Footnote text taken out of the page flow, so a sentence that runs on over the page stays whole.

A footnote starts at a line that opens with a raised or smaller mark and is drawn smaller than the
document's body text, with only smaller text below it on the page.
"""

from __future__ import annotations

import re
from collections import Counter

from deepr_mcp.research.corpus.ingest.pdf.extract import RAISED, Line

_RAISED_RUN = re.compile("[\ue000-\ue009]+")
_PLAIN = {v: k for k, v in RAISED.items()}


def body_size(pages: list[list[Line]]) -> float:
    """The font size most of the document's lines are drawn in."""
    sizes = Counter(round(line.size, 1) for page in pages for line in page)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def split_footnotes(page: list[Line], body: float) -> tuple[list[Line], list[tuple[str, list[Line]]]]:
    """The page's flow lines, and its footnotes as ``(mark, lines)``."""
    small = [line.size < 0.95 * body for line in page]
    marks = [_mark_of(page, i) for i in range(len(page))]
    for start in range(len(page)):
        if marks[start] and small[start] and all(small[start:]):
            notes: list[tuple[str, list[Line]]] = []
            for i in range(start, len(page)):
                if marks[i] or not notes:
                    notes.append((marks[i], []))
                if page[i].text != marks[i]:  # a mark drawn as a line of its own is not text
                    notes[-1][1].append(page[i])
            return page[:start], [(mark, lines) for mark, lines in notes if lines]
    return page, []


def _mark_of(page: list[Line], i: int) -> str:
    """The footnote mark that opens line ``i``: raised at its start, or a small number on a line of its own."""
    line = page[i]
    if line.footnote_mark:
        return line.footnote_mark
    following = page[i + 1] if i + 1 < len(page) else None
    if line.text.isdigit() and len(line.text) <= 2 and following and line.size < 0.8 * following.size:
        return line.text
    return ""


def settle_marks(lines: list[Line], notes: list[tuple[str, list[Line]]]) -> None:
    """Raised digits that name one of the page's footnotes leave the text; others (``x2``) stay."""
    marks = {mark for mark, _ in notes}

    def settle(run: re.Match[str]) -> str:
        digits = run.group(0).translate(_PLAIN)
        return "" if digits in marks else digits

    for line in lines:
        if _RAISED_RUN.search(line.text):
            line.text = " ".join(_RAISED_RUN.sub(settle, line.text).split())
    for _, note_lines in notes:
        for line in note_lines:
            line.text = " ".join(_RAISED_RUN.sub("", line.text).split())
