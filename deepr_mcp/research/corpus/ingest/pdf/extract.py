"""A PDF's text as positioned lines, read with pypdfium2, plus its outline.

The cleaning steps need more than a page's text: where each line sits (running headers are the top
and bottom lines, a footnote is small text at the foot), its font size (a raised small digit after a
word is a footnote mark, not part of the word) and whether a quote is drawn in a monospaced font
(code, where a curly quote in the text would stop a copied command from running). pdfium gives all
of that per character, and only the few characters that matter are asked about.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass, field
from statistics import median

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

_CURLY = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}
_MARK = re.compile(r"(?<=[^\W\d_])(\d{1,2})(?=[\s.,;:)]|$)")
"""Digits right after a letter: a footnote mark when they are drawn smaller or raised."""
_LEAD_MARK = re.compile(r"^\s*(\d{1,2})\s*\S")
RAISED = str.maketrans("0123456789", "".join(chr(0xE000 + d) for d in range(10)))
"""Raised digits are kept in private-use code points until their footnote is found (or not) on the page."""
FONT_SAMPLES = 8
CODE_SHARE = 0.75
SOFT_HYPHEN = "\ufffe"
"""What pdfium puts where a word was hyphenated at a line end (the line break is taken out)."""


@dataclass(slots=True)
class Line:
    """One text line of a page: its text and where and how large it is drawn (PDF units, y up)."""

    text: str
    page: int
    x0: float
    x1: float
    y: float
    size: float
    footnote_mark: str = ""
    """Set when the line starts with a footnote mark: the line opens that footnote's text."""
    fonts: list[bytes] = field(default_factory=list)
    """Fonts of a few characters spread over the line."""
    mono: bool = False
    """Drawn in a monospaced font: a line of code."""


@dataclass(frozen=True, slots=True)
class Heading:
    """An outline (bookmark) entry: its depth, title, page and where on the page it points."""

    level: int
    title: str
    page: int
    y: float | None


@dataclass(slots=True)
class Extracted:
    pages: list[list[Line]]
    outline: list[Heading]


class _Chars:
    """Per-character questions to one page's pdfium text page."""

    def __init__(self, textpage: pdfium.PdfTextPage) -> None:
        self.raw = textpage.raw
        self._x, self._y = ctypes.c_double(), ctypes.c_double()
        self._flags = ctypes.c_int()
        self._name = ctypes.create_string_buffer(128)

    def origin(self, i: int) -> tuple[float, float]:
        pdfium_c.FPDFText_GetCharOrigin(self.raw, i, ctypes.byref(self._x), ctypes.byref(self._y))
        return self._x.value, self._y.value

    def size(self, i: int) -> float:
        return float(pdfium_c.FPDFText_GetFontSize(self.raw, i))

    def right(self, i: int) -> float:
        left, right, bottom, top = (ctypes.c_double() for _ in range(4))
        pdfium_c.FPDFText_GetCharBox(
            self.raw, i, ctypes.byref(left), ctypes.byref(right), ctypes.byref(bottom), ctypes.byref(top)
        )
        return right.value

    def font(self, i: int) -> bytes:
        pdfium_c.FPDFText_GetFontInfo(self.raw, i, self._name, 128, ctypes.byref(self._flags))
        return self._name.value


def extract(raw: bytes) -> Extracted:
    """Lines per page and the outline; raises what pdfium raises on a file it cannot open."""
    document = pdfium.PdfDocument(raw)
    try:
        quotes: list[tuple[Line, int, bytes]] = []
        advances: dict[bytes, list[float]] = {}
        pages = []
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            try:
                pages.append(_page_lines(index, textpage, quotes, advances))
            finally:
                textpage.close()
                page.close()
        _mark_code(pages, quotes, monospaced(advances))
        for lines in pages:
            for line in lines:
                line.text = " ".join(line.text.split())
        return Extracted(pages, _outline(document))
    finally:
        document.close()


def _page_lines(
    index: int, textpage: pdfium.PdfTextPage, quotes: list[tuple[Line, int, bytes]], advances: dict[bytes, list[float]]
) -> list[Line]:
    text = textpage.get_text_range()
    chars = _Chars(textpage)
    lines: list[Line] = []
    start = 0
    for end in [m.start() for m in re.finditer(r"\r?\n", text)] + [len(text)]:
        piece = text[start:end]
        first = start + len(piece) - len(piece.lstrip())
        last = start + len(piece.rstrip()) - 1
        if piece.strip():
            x0, y = chars.origin(first)
            size = median(chars.size(first + (last - first) * k // 4) for k in range(5))  # not one small-caps word
            line = Line(piece.strip(), index, x0, chars.right(last), y, size)
            _detach_marks(line, first, chars)
            for at in sorted({first + (last - first) * k // (FONT_SAMPLES - 1) for k in range(FONT_SAMPLES)}):
                if not text[at].isspace():
                    font = chars.font(at)
                    line.fonts.append(font)
                    advances.setdefault(font, []).extend(_advance(chars, at, font, last))
            for m in re.finditer("[\u2018\u2019\u201c\u201d]", line.text):
                at = first + m.start()
                font = chars.font(at)
                quotes.append((line, m.start(), font))
                for i in range(max(first, at - 6), min(last, at + 6)):
                    advances.setdefault(font, []).extend(_advance(chars, i, font, last))
            lines.append(line)
        start = end + (2 if text[end : end + 2] == "\r\n" else 1)
    return lines


def _detach_marks(line: Line, first: int, chars: _Chars) -> None:
    """Digits drawn smaller or raised after a word may be a footnote mark: set apart, same length.

    Whether they are a mark or an exponent (``x²``) is known only once the page's footnotes are
    found, so they are written in private-use digits (see ``RAISED``) and settled then.
    """
    lead = _LEAD_MARK.match(line.text)
    spans = []
    if lead and _is_raised(chars, first + lead.start(1), line.size):
        line.footnote_mark = lead.group(1)
        spans.append(lead.span(1))
    for m in _MARK.finditer(line.text):
        at = first + m.start(1)
        if m.start(1) > 0 and _is_raised(chars, at, chars.size(at - 1), at - 1):
            spans.append(m.span(1))
    for a, b in spans:  # same length, so quote positions found later still point at their characters
        line.text = line.text[:a] + line.text[a:b].translate(RAISED) + line.text[b:]


def _is_raised(chars: _Chars, a: int, body_size: float, before: int | None = None) -> bool:
    size = chars.size(a)
    if body_size > 0 and size < 0.8 * body_size:
        return True
    if before is None:
        return False
    return chars.origin(a)[1] > chars.origin(before)[1] + 0.25 * max(body_size, 1.0)


def _advance(chars: _Chars, i: int, font: bytes, last: int) -> list[float]:
    """How far character ``i`` moves the pen, per unit of font size, if ``i + 1`` is drawn after it in ``font``."""
    if i >= last or chars.font(i) != font or chars.font(i + 1) != font:
        return []
    if pdfium_c.FPDFText_IsGenerated(chars.raw, i + 1) != 0:
        return []
    (xa, ya), (xb, yb) = chars.origin(i), chars.origin(i + 1)
    size = chars.size(i)
    return [(xb - xa) / size] if abs(ya - yb) < 0.5 and xb > xa and size > 0 else []


def monospaced(advances: dict[bytes, list[float]]) -> set[bytes]:
    """Fonts whose every glyph moves the pen the same distance: code fonts, learned from the document."""
    out = set()
    for font, widths in advances.items():
        if len(widths) >= 6:
            ordered = sorted(widths)
            low, high = ordered[len(ordered) // 10], ordered[(len(ordered) * 9) // 10]
            if low > 0 and high / low < 1.1:
                out.add(font)
    return out


def _mark_code(pages: list[list[Line]], quotes: list[tuple[Line, int, bytes]], mono: set[bytes]) -> None:
    """Lines drawn (mostly) in a monospaced font are code; curly quotes drawn in one become ASCII."""
    for lines in pages:
        for line in lines:
            line.mono = bool(line.fonts) and sum(f in mono for f in line.fonts) >= CODE_SHARE * len(line.fonts)
    for line, at, font in quotes:
        if font in mono:
            line.text = line.text[:at] + _CURLY[line.text[at]] + line.text[at + 1 :]


def _outline(document: pdfium.PdfDocument) -> list[Heading]:
    out = []
    for item in document.get_toc(max_depth=8):
        dest = item.get_dest()
        if dest is None:
            continue
        page = dest.get_index()
        if page is None:
            continue
        _, view = dest.get_view()
        y = float(view[1]) if len(view) >= 2 and view[1] else None
        title = " ".join((item.get_title() or "").split())
        if title:
            out.append(Heading(item.level, title, page, y))
    return out
