"""PDF to clean located sections: page furniture, contents pages and footnotes out, words whole.

Order matters: headers and footers go first (they sit between a page's last sentence and the next
page's first), contents and index pages next, then footnotes leave the flow; what is left is cut
along the outline and joined into paragraphs with the document's own vocabulary.
"""

from __future__ import annotations

import logging
from pathlib import Path

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.ingest.model import Section
from deepr_mcp.research.ingest.pdf.extract import Extracted, Line, extract
from deepr_mcp.research.ingest.pdf.footnotes import body_size, settle_marks, split_footnotes
from deepr_mcp.research.ingest.pdf.furniture import LEADER, drop_furniture, is_reference_page
from deepr_mcp.research.ingest.pdf.joining import Vocabulary, join_lines, paragraphs
from deepr_mcp.research.ingest.pdf.outline import OutlineSection, outline_sections

__all__ = ["pdf_sections", "sections_from"]


def pdf_sections(path: Path, raw: bytes) -> list[Section]:
    """Sections of a PDF: by outline heading path when it has bookmarks, else by page."""
    if not raw.startswith(b"%PDF"):
        raise InvalidInput(f"{path}: has a .pdf name but is not a PDF file")
    logging.getLogger("pypdfium2").setLevel(logging.ERROR)
    try:
        extracted = extract(raw)
    except Exception as exc:  # pdfium and ctypes raise several types on damaged files; each is "not readable"
        raise InvalidInput(f"{path}: not a readable PDF ({type(exc).__name__}: {exc})"[:500]) from None
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
        parts = outline_sections(flow, extracted.outline)
    else:
        parts = _by_page(flow)
    out: list[Section] = []
    offset = 0
    for part in parts:
        texts = paragraphs(part.lines, vocabulary)
        for page in sorted({line.page for line in part.lines}):
            for mark, lines in notes.pop(page, []):
                note = join_lines([line.text for line in lines], vocabulary)
                texts.append(f"Footnote {mark}: {note}" if mark else note)
        text = "\n\n".join(t for t in texts if t.strip())
        if text.strip():
            out.append(Section(text, " > ".join(part.path), offset))
            offset += len(text) + 2
    return out


def _by_page(flow: list[Line]) -> list[OutlineSection]:
    parts: list[OutlineSection] = []
    for line in flow:
        if not parts or parts[-1].lines[-1].page != line.page:
            parts.append(OutlineSection([f"page {line.page + 1}"], []))
        parts[-1].lines.append(line)
    return parts
