"""Sections along the PDF's outline (bookmarks): each passage knows its heading path.

An outline entry points at a page and usually a height on it; the section starts at the line that
shows the entry's title there (that line is the heading, not body text), else at the first line
at or below the height, else at the top of the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepr_mcp.research.corpus.ingest.pdf.extract import Heading, Line


@dataclass(slots=True)
class OutlineSection:
    path: list[str]
    lines: list[Line]


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _start(heading: Heading, flow: list[Line], lo: int) -> tuple[int, bool]:
    """Index in ``flow`` where the heading's section starts, and whether that line is the title."""
    title = _norm(heading.title)
    on_page = [i for i in range(lo, len(flow)) if flow[i].page == heading.page]
    if not on_page:
        later = next((i for i in range(lo, len(flow)) if flow[i].page > heading.page), len(flow))
        return later, False
    for i in on_page:
        text = _norm(flow[i].text)
        if (
            title
            and text
            and (text == title or text.endswith(" " + title) or (len(text) > 3 and title.startswith(text)))
        ):
            if heading.y is None or flow[i].y <= heading.y + 2 * flow[i].size:
                return i, True
    if heading.y is not None:
        below = next((i for i in on_page if flow[i].y <= heading.y + 1), None)
        if below is not None:
            return below, False
    return on_page[0], False


def outline_sections(flow: list[Line], outline: list[Heading]) -> list[OutlineSection]:
    """The document's lines cut into sections at its outline entries, in order."""
    sections: list[OutlineSection] = []
    stack: list[str] = []
    at = 0
    first_page = flow[0].page if flow else 0
    pending = OutlineSection([f"page {first_page + 1}"], [])
    for heading in outline:
        start, is_title = _start(heading, flow, at)
        pending.lines.extend(flow[at:start])
        sections.append(pending)
        stack = [*stack[: heading.level], heading.title]
        at = start + 1 if is_title else start
        pending = OutlineSection(list(stack), [])
    pending.lines.extend(flow[at:])
    sections.append(pending)
    return [s for s in sections if s.lines]
