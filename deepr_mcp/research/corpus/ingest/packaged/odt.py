"""OpenDocument text (``.odt``, LibreOffice's own format): headings by their outline level, paragraphs,
lists and tables in order.

Spaces written as ``text:s`` and tabs and line breaks are kept; footnotes and endnotes (``text:note``),
tracked changes and annotations are not the sentence they sit in, and are left out.
"""

from __future__ import annotations

from pathlib import Path
from xml.etree.ElementTree import Element

from deepr_mcp.research.corpus.ingest.model import Section, Sections
from deepr_mcp.research.corpus.ingest.packaged.zipped import Package

T = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
CONTENT = "content.xml"
SKIPPED = frozenset({f"{T}note", f"{T}tracked-changes", f"{OFFICE}annotation", f"{T}bookmark-ref"})


def _text(node: Element) -> str:
    out: list[str] = [node.text or ""]
    for child in node:
        if child.tag not in SKIPPED:
            if child.tag == f"{T}s":
                count = child.get(f"{T}c", "1")
                out.append(" " * min(int(count), 80) if count.isdigit() else " ")
            elif child.tag == f"{T}tab":
                out.append("\t")
            elif child.tag == f"{T}line-break":
                out.append("\n")
            else:
                out.append(_text(child))
        out.append(child.tail or "")
    return "".join(out)


def odt_sections(path: Path, raw: bytes, *, max_bytes: int) -> list[Section]:
    package = Package(path, raw, max_bytes, "OpenDocument text")
    text = package.xml(CONTENT).find(f"{OFFICE}body/{OFFICE}text")
    out = Sections()
    _read(text if text is not None else Element("x"), out, listed=False)
    out.flush()
    return out.sections


def _read(container: Element, out: Sections, *, listed: bool) -> None:
    for block in container:
        tag = block.tag
        if tag == f"{T}h":
            level = block.get(f"{T}outline-level", "1")
            if title := " ".join(_text(block).split()):
                out.heading(int(level) if level.isdigit() and 0 < int(level) < 11 else 1, title)
        elif tag == f"{T}p":
            if line := _text(block).strip():
                out.lines += [f"- {line}" if listed else line, ""]
        elif tag == f"{T}list":
            for item in block.findall(f"{T}list-item"):
                _read(item, out, listed=True)
        elif tag == f"{TABLE}table":
            for row in block.iter(f"{TABLE}table-row"):
                cells = [" ".join(" ".join(map(_text, cell)).split()) for cell in row.findall(f"{TABLE}table-cell")]
                if any(cells):
                    out.lines.append(" | ".join(cells))
            out.lines.append("")
        elif tag == f"{T}section":
            _read(block, out, listed=listed)
