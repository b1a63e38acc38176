"""Unix manual pages (roff with the man or mdoc macros) to located sections, in Python alone.

No groff or mandoc is run: the user's machine may have neither. Which files are pages is decided
by name (``ls.1``, ``ssl.3ssl``, ``tool.man``) and then by content: a page begins, after comments and
blank lines, with a control line (``.TH``, ``.Dd``, ``.so``, ``.de`` ...). A file named like a
page that holds plain text (or a page nroff already formatted) is read as plain text; one that
holds binary data (``libz.so.1``) is not a document. A page that is only ``.so man1/other.1``
points to another page: not content.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from deepr_mcp.research.corpus.ingest.decode import decode
from deepr_mcp.research.corpus.ingest.model import NotContent, Section
from deepr_mcp.research.corpus.ingest.roff.layout import Layout
from deepr_mcp.research.corpus.ingest.roff.man import MACROS as MAN_MACROS
from deepr_mcp.research.corpus.ingest.roff.man import ManPage
from deepr_mcp.research.corpus.ingest.roff.mdoc import MACROS as MDOC_MACROS
from deepr_mcp.research.corpus.ingest.roff.mdoc import MdocPage
from deepr_mcp.research.corpus.ingest.roff.reader import Reader
from deepr_mcp.research.corpus.ingest.text import plain_sections

__all__ = ["MAN_SUFFIXES", "is_man_suffix", "looks_like_roff", "man_sections", "roff_sections"]

MAN_SUFFIXES = ".man, .1-.9 (man pages, also .1p .3pm .1ssl ...)"
"""How the suffixes read in a list of supported types."""

_SUFFIX = re.compile(r"\.(?:[1-9][a-z0-9]{0,11}|man)", re.I)
_IGNORABLE = re.compile(r"^(?:[.'][ \t]*\\\".*|\\\".*|[.'][ \t]*|[ \t]*)$")
_CONTROL = re.compile(r"^[.'][ \t]*(?:[A-Za-z][A-Za-z0-9]{0,3}|\\\")(?=[\s\\]|$)")
_MDOC = re.compile(r"^[.'][ \t]*(?:Dd|Dt|Sh)\b", re.M)
_MAN = re.compile(r"^[.'][ \t]*TH\b", re.M)
_SNIFF_LINES = 200
_CODING = re.compile(rb"-\*-.*?\bcoding:[ \t]*([A-Za-z0-9_.-]{1,40})")
_OVERSTRUCK = re.compile(r"[^\n]\x08")
"""A character and a backspace: how nroff output draws bold (``N\bN``) and underline (``_\bx``)."""


def is_man_suffix(suffix: str) -> bool:
    """Whether a file suffix (``.1``, ``.3pm``, ``.man``; for ``ls.1.gz`` the inner one) names a manual page."""
    return bool(_SUFFIX.fullmatch(suffix))


def looks_like_roff(text: str) -> bool:
    """A page starts, after blank lines and comments, with a control line; plain text does not."""
    for line in text.split("\n", _SNIFF_LINES)[:_SNIFF_LINES]:
        line = line.rstrip("\r")
        if line.startswith("'\\\""):  # '\" t: the preprocessor hint that opens many pages
            return True
        if _IGNORABLE.match(line):
            continue
        return bool(_CONTROL.match(line))
    return False


def man_sections(path: Path, raw: bytes) -> list[Section]:
    """Sections of a file named like a manual page: roff if it is roff, else plain text."""
    if b"\x00" in raw[:8192]:
        raise NotContent("binary data named like a manual page (.1 ...), not a document")
    text = _decoded(path, raw)
    if not looks_like_roff(text):  # plain text, or a preformatted "cat" page: its overstrikes undone
        return plain_sections(_OVERSTRUCK.sub("", text))
    return roff_sections(text)


def _decoded(path: Path, raw: bytes) -> str:
    """UTF-8, unless the page names its encoding as groff's preconv reads it (``.\\" -*- coding: latin-1 -*-``)."""
    declared = _CODING.search(b"\n".join(raw.split(b"\n", 2)[:2]))
    if declared:
        try:
            codec = codecs.lookup(declared.group(1).decode("ascii")).name
        except LookupError:
            codec = "utf-8"
        if codec != "utf-8":
            return raw.decode(codec, errors="replace")
    return decode(path, raw)


def roff_sections(text: str) -> list[Section]:
    """Sections of a man(7) or mdoc(7) page; raises ``NotContent`` for a page that only points elsewhere."""
    mdoc = _MDOC.search(text)
    man = _MAN.search(text)
    layout = Layout()
    if mdoc and (man is None or mdoc.start() < man.start()):
        page: ManPage | MdocPage = MdocPage(Reader(text, MDOC_MACROS), layout)
    else:
        page = ManPage(Reader(text, MAN_MACROS), layout)
    page.read()
    sections = layout.sections()
    if not sections and page.pointers:
        raise NotContent(f"a pointer to another manual page (.so {page.pointers[0]})"[:300])
    return sections
