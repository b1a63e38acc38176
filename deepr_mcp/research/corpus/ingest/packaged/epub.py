"""EPUB books: the chapters in reading order (the package's spine), each read as the HTML page it is.

``META-INF/container.xml`` names the package document; its manifest maps ids to files and its spine
lists them in reading order. A chapter that is a navigation page (the table of contents) is skipped as
such pages are on disk; a chapter's sections keep their heading paths under the chapter's own title.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from urllib.parse import unquote

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest.decode import decode
from deepr_mcp.research.corpus.ingest.html import html_sections
from deepr_mcp.research.corpus.ingest.model import NotContent, Section
from deepr_mcp.research.corpus.ingest.packaged.zipped import Package

CONTAINER = "META-INF/container.xml"
_C = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
PAGES = frozenset({"application/xhtml+xml", "text/html"})


def spine(package: Package) -> list[str]:
    """The chapters' member names in reading order."""
    root = package.xml(CONTAINER).find(f"{_C}rootfiles/{_C}rootfile")
    opf = root.get("full-path", "") if root is not None else ""
    if not opf:
        raise InvalidInput(f"{package.path}: its {CONTAINER} names no package document")
    document = package.xml(opf)
    base = posixpath.dirname(opf)
    manifest = {
        item.get("id", ""): item
        for item in document.iter(f"{_OPF}item")
        if item.get("media-type") in PAGES and item.get("href")
    }
    order = []
    for ref in document.iter(f"{_OPF}itemref"):
        item = manifest.get(ref.get("idref", ""))
        if item is not None:
            name = posixpath.normpath(posixpath.join(base, unquote(item.get("href", "").split("#")[0])))
            if name not in order:
                order.append(name)
    return order


def epub_sections(path: Path, raw: bytes, *, max_bytes: int) -> list[Section]:
    package = Package(path, raw, max_bytes, "EPUB book")
    out: list[Section] = []
    offset = 0
    for name in spine(package):
        if not package.has(name):
            continue  # a spine entry the package lacks: the rest of the book is still read
        try:
            chapter = html_sections(decode(path, package.read(name), html=True))
        except NotContent:
            continue
        except InvalidInput as exc:
            raise InvalidInput(f"{path}: chapter {name!r}: {exc.message}") from None
        for section in chapter:
            out.append(Section(section.text, section.location, offset + section.start))
        offset += sum(len(s.text) + 2 for s in chapter)
    return out
