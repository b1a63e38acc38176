"""Files to located text: sections with a heading or page, then passages with stable ids.

A passage id is a hash of the file path, its character offsets and its text, so re-adding an
unchanged file yields the same ids and citations in old reports keep resolving.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from deepr_mcp.errors import InvalidInput

SUPPORTED = (".md", ".markdown", ".txt", ".rst", ".html", ".htm", ".pdf")
TARGET_CHARS = 700
MAX_CHARS = 1100


@dataclass(frozen=True, slots=True)
class Section:
    text: str
    location: str
    start: int


@dataclass(frozen=True, slots=True)
class Chunk:
    id: str
    text: str
    location: str
    start: int
    end: int


def read_text(path: Path, raw: bytes) -> str:
    """UTF-8 text, or a clear error for binary or undecodable files."""
    if b"\x00" in raw[:8192]:
        raise InvalidInput(f"{path}: looks binary (contains NUL bytes); supported: {', '.join(SUPPORTED)}")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path}: not UTF-8 text (byte {exc.start}); convert it to UTF-8 first") from None


def markdown_sections(text: str) -> list[Section]:
    """Sections under each heading; the heading itself becomes the location, not passage text."""
    sections, heads = [], []
    start = 0
    for match in re.finditer(r"^(#{1,6})[ \t]+(.+?)\s*#*\s*$", text, re.M):
        if match.start() > start:
            sections.append(Section(text[start : match.start()], " > ".join(heads), start))
        level = len(match.group(1))
        heads = [*heads[: level - 1], match.group(2).strip()]
        start = match.end()
    sections.append(Section(text[start:], " > ".join(heads), start))
    return sections


def rst_sections(text: str) -> list[Section]:
    sections, start, head = [], 0, ""
    for match in re.finditer(r"^(\S.*)\n([=\-~^\"'`#*+]{3,})\s*$", text, re.M):
        if len(match.group(2)) >= len(match.group(1).strip()) - 1:
            if match.start() > start:
                sections.append(Section(text[start : match.start()], head, start))
            head, start = match.group(1).strip(), match.start()
    sections.append(Section(text[start:], head, start))
    return sections


class _HtmlText(HTMLParser):
    """Visible text by heading; script, style and other non-content elements are skipped."""

    SKIP = frozenset({"script", "style", "noscript", "template", "svg", "head"})
    BLOCK = frozenset({"p", "div", "li", "br", "tr", "section", "article", "h1", "h2", "h3", "h4", "h5", "h6"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[tuple[str, list[str]]] = [("", [])]
        self._skip = 0
        self._heading: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.SKIP:
            self._skip += 1
        elif tag in ("h1", "h2", "h3"):
            self._heading = []
        if tag in self.BLOCK:
            self.sections[-1][1].append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP and self._skip:
            self._skip -= 1
        elif tag in ("h1", "h2", "h3") and self._heading is not None:
            title = " ".join("".join(self._heading).split())
            self.sections.append((title, []))
            self._heading = None
        if tag in self.BLOCK:
            self.sections[-1][1].append("\n")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._heading is not None:
            self._heading.append(data)
        else:
            self.sections[-1][1].append(data)


def html_sections(text: str) -> list[Section]:
    parser = _HtmlText()
    parser.feed(text)
    parser.close()
    out, offset = [], 0
    for head, parts in parser.sections:
        body = re.sub(r"[ \t]+", " ", "".join(parts))
        body = re.sub(r"\n\s*\n+", "\n\n", body).strip()
        if body:
            out.append(Section(body, head, offset))
            offset += len(body) + 2
    return out


def pdf_sections(path: Path) -> list[Section]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError) as exc:
        raise InvalidInput(f"{path}: not a readable PDF ({exc})") from None
    out, offset = [], 0
    for number, text in enumerate(pages, start=1):
        if text.strip():
            out.append(Section(text, f"page {number}", offset))
        offset += len(text) + 1
    return out


def sections_of(path: Path, raw: bytes) -> list[Section]:
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise InvalidInput(f"{path}: unsupported file type {suffix or '(none)'}; supported: {', '.join(SUPPORTED)}")
    if suffix == ".pdf":
        if not raw.startswith(b"%PDF"):
            raise InvalidInput(f"{path}: has a .pdf name but is not a PDF file")
        return pdf_sections(path)
    text = read_text(path, raw)
    if suffix in (".md", ".markdown"):
        return markdown_sections(text)
    if suffix == ".rst":
        return rst_sections(text)
    if suffix in (".html", ".htm"):
        return html_sections(text)
    return [Section(text, "", 0)]


def chunk(source: str, sections: list[Section]) -> list[Chunk]:
    """Paragraph-packed passages of ~700 characters; long paragraphs are split at sentences."""
    out = []
    for section in sections:
        pieces = []
        for match in re.finditer(r"\S(?:.*?\S)?(?=[ \t]*\n\s*\n|\s*\Z)", section.text, re.S):
            para = match.group(0)
            if len(para) <= MAX_CHARS:
                pieces.append((section.start + match.start(), para))
                continue
            offset = match.start()
            for sentence in re.split(r"(?<=[.!?])\s+", para):
                at = section.text.find(sentence, offset)
                pieces.append((section.start + at, sentence))
                offset = at + len(sentence)
        buffer: list[tuple[int, str]] = []
        for piece in pieces:
            if buffer and sum(len(t) for _, t in buffer) + len(piece[1]) > TARGET_CHARS:
                out.append(_make_chunk(source, section.location, buffer))
                buffer = []
            buffer.append(piece)
        if buffer:
            out.append(_make_chunk(source, section.location, buffer))
    return [c for c in out if len(c.text.split()) >= 3]


def _make_chunk(source: str, location: str, pieces: list[tuple[int, str]]) -> Chunk:
    text = "\n\n".join(" ".join(t.split()) for _, t in pieces)
    start, end = pieces[0][0], pieces[-1][0] + len(pieces[-1][1])
    digest = hashlib.sha256(f"{source}\x00{start}\x00{end}\x00{text}".encode()).hexdigest()[:16]
    return Chunk(id=f"p{digest}", text=text, location=location, start=start, end=end)
