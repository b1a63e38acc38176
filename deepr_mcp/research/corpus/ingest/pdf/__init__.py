"""PDF to clean located sections: page furniture, contents pages and footnotes out, words whole.

Order matters: headers and footers go first (they sit between a page's last sentence and the next
page's first), contents and index pages next, then footnotes leave the flow; what is left is cut
along the outline and joined into paragraphs with the document's own vocabulary.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest.model import Section
from deepr_mcp.research.corpus.ingest.pdf.apart import MEMORY_BYTES, ReaderFailed, ReaderStopped, extract_apart
from deepr_mcp.research.corpus.ingest.pdf.extract import Extracted, Line
from deepr_mcp.research.corpus.ingest.pdf.footnotes import body_size, settle_marks, split_footnotes
from deepr_mcp.research.corpus.ingest.pdf.furniture import LEADER, drop_furniture, is_reference_page
from deepr_mcp.research.corpus.ingest.pdf.joining import Vocabulary, join_lines, paragraph_groups, render
from deepr_mcp.research.corpus.ingest.pdf.outline import outline_sections

__all__ = ["pdf_sections", "sections_from"]

FULL_PAGE_LINES = 8
"""Pages with fewer lines say nothing about where a full page ends."""


def pdf_sections(path: Path, raw: bytes, *, memory_bytes: int = MEMORY_BYTES) -> list[Section]:
    """Sections of a PDF: by outline heading path when it has bookmarks, else by page. The text is read in a
    worker process whose address space is capped at ``memory_bytes`` (``apart``)."""
    if not raw.startswith(b"%PDF"):
        raise InvalidInput(f"{path}: has a .pdf name but is not a PDF file")
    logging.getLogger("pypdfium2").setLevel(logging.ERROR)
    try:
        extracted = extract_apart(raw, memory_bytes)
    except ReaderStopped as exc:
        raise InvalidInput(f"{path}: not read: {exc}") from None
    except ReaderFailed as exc:  # pdfium and ctypes raise several types on damaged files; each is "not readable"
        if "password" in str(exc).lower():
            raise InvalidInput(
                f"{path}: password-protected PDF; save an unprotected copy (e.g. `qpdf --decrypt "
                "--password=PASSWORD in.pdf out.pdf`) and add that"
            ) from None
        raise InvalidInput(f"{path}: not a readable PDF ({exc.kind}: {exc})"[:500]) from None
    if extracted.pages and not any(line.text.strip() for page in extracted.pages for line in page):
        raise InvalidInput(
            f"{path}: no text layer (scanned?): OCR it first (e.g. `ocrmypdf in.pdf out.pdf`) and add the result"
        )
    return sections_from(extracted)


def sections_from(extracted: Extracted) -> list[Section]:
    pages = drop_furniture(extracted.pages)
    pages = [[] if is_reference_page(page) else [x for x in page if not LEADER.search(x.text)] for page in pages]
    body = body_size(pages)
    vocabulary = Vocabulary.of(line.text for page in pages for line in page)
    flow: list[Line] = []
    notes: dict[int, list[tuple[str, list[Line]]]] = {}
    for index, page in enumerate(pages):
        lines, page_notes = split_footnotes(page, body)
        settle_marks(lines, page_notes)
        flow.extend(lines)
        if page_notes:
            notes[index] = page_notes
    if extracted.outline:
        parts = [(" > ".join(s.path), paragraph_groups(s.lines)) for s in outline_sections(flow, extracted.outline)]
    else:
        parts = _by_page(flow)
    out: list[Section] = []
    offset = 0
    for location, groups in parts:
        texts = [render(group, vocabulary) for group in groups]
        for page in sorted({line.page for group in groups for line in group}):
            for mark, lines in notes.pop(page, []):
                note = join_lines([line.text for line in lines], vocabulary)
                texts.append(f"Footnote {mark}: {note}" if mark else note)
        text = "\n\n".join(t for t in texts if t.strip())
        if text.strip():
            out.append(Section(text, location, offset))
            offset += len(text) + 2
    return out


def _by_page(flow: list[Line]) -> list[tuple[str, list[list[Line]]]]:
    """No outline: a section per page; a paragraph that runs on over a full page stays under its first page."""
    pages: dict[int, list[Line]] = {}
    for line in flow:
        pages.setdefault(line.page, []).append(line)
    bottom = _bottom_margin(pages)
    parts: list[tuple[str, list[list[Line]]]] = []
    for number, lines in pages.items():
        groups = paragraph_groups(lines)
        if parts and groups and _runs_on(parts[-1][1][-1], groups[0], bottom):
            parts[-1][1][-1] = parts[-1][1][-1] + groups.pop(0)
        if groups:
            parts.append((f"page {number + 1}", groups))
    return parts


def _bottom_margin(pages: dict[int, list[Line]]) -> float | None:
    """Where full pages end (the median lowest line), learned only from pages with enough lines to tell."""
    lows = sorted(min(line.y for line in lines) for lines in pages.values() if len(lines) >= FULL_PAGE_LINES)
    return lows[len(lows) // 2] if lows else None


def _runs_on(before: list[Line], after: list[Line], bottom: float | None) -> bool:
    """A paragraph goes on over the page break: its page is full, its sentence open, the next page's text code-free."""
    last, first = before[-1], after[0]
    if bottom is None or last.mono or first.mono or last.page + 1 != first.page:
        return False
    return last.y <= bottom + 1.5 * last.size and not re.search(r"[.!?:;]$", last.text)
