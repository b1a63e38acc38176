"""Word documents (``.docx``): the body's paragraphs and tables in order, under their headings.

A heading is a paragraph whose style has an outline level (Word's built-in "heading 1".."heading 9" and
any custom style based on them say so in ``styles.xml``) or the Title style; its level makes the heading
path. Text is the runs' text with tabs and breaks kept; deleted tracked changes and field codes are left
out; a table becomes one line per row, cells joined by " | "; a list item starts with "- ".
"""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree.ElementTree import Element

from deepr_mcp.research.corpus.ingest.model import Section, Sections
from deepr_mcp.research.corpus.ingest.packaged.zipped import Package

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
BODY = "word/document.xml"
STYLES = "word/styles.xml"
_HEADING_NAME = re.compile(r"^heading (\d)$", re.I)


def paragraph_styles(package: Package) -> tuple[dict[str, int], set[str]]:
    """From the package's styles: paragraph style id -> heading level (1-based; the Title style is 0), and
    the ids of list styles (numbered in the style itself, as "List Bullet" is). A custom style based on
    one of them inherits what it is."""
    if not package.has(STYLES):
        return {}, set()
    levels: dict[str, int] = {}
    listed: set[str] = set()
    based_on: dict[str, str] = {}
    for style in package.xml(STYLES).iter(f"{W}style"):
        if style.get(f"{W}type") != "paragraph" or not (sid := style.get(f"{W}styleId")):
            continue
        named = style.find(f"{W}name")
        name = named.get(f"{W}val", "") if named is not None else ""
        outline = style.find(f"{W}pPr/{W}outlineLvl")
        if outline is not None and (value := outline.get(f"{W}val", "")).isdigit() and int(value) < 9:
            levels[sid] = int(value) + 1
        elif match := _HEADING_NAME.match(name):
            levels[sid] = int(match.group(1))
        elif name.lower() == "title":
            levels[sid] = 0
        if style.find(f"{W}pPr/{W}numPr") is not None:
            listed.add(sid)
        if (parent := style.find(f"{W}basedOn")) is not None:
            based_on[sid] = parent.get(f"{W}val", "")
    for sid in based_on:
        ancestor, seen = based_on[sid], {sid}
        while ancestor and ancestor not in seen and sid not in levels and sid not in listed:
            if ancestor in levels:
                levels[sid] = levels[ancestor]
            elif ancestor in listed:
                listed.add(sid)
            seen.add(ancestor)
            ancestor = based_on.get(ancestor, "")
    return levels, listed


def _text(node: Element) -> str:
    out: list[str] = []
    for el in node.iter():
        tag = el.tag
        if tag == f"{W}t":
            out.append(el.text or "")
        elif tag == f"{W}tab":
            out.append("\t")
        elif tag in (f"{W}br", f"{W}cr"):
            out.append("\n")
        elif tag == f"{W}noBreakHyphen":
            out.append("-")
    return "".join(out)


def _visible(node: Element) -> Element:
    """The node without deleted tracked changes (``w:del``) and field instructions."""
    for parent in list(node.iter()):
        for child in list(parent):
            if child.tag in (f"{W}del", f"{W}instrText", f"{W}delText"):
                parent.remove(child)
    return node


def docx_sections(path: Path, raw: bytes, *, max_bytes: int) -> list[Section]:
    package = Package(path, raw, max_bytes, "Word document")
    levels, listed = paragraph_styles(package)
    body = package.xml(BODY).find(f"{W}body")
    out = Sections()
    for block in _blocks(body if body is not None else Element("x")):
        if block.tag == f"{W}tbl":
            for row in block.iter(f"{W}tr"):
                cells = [" ".join(_text(_visible(cell)).split()) for cell in row.iter(f"{W}tc")]
                if any(cells):
                    out.lines.append(" | ".join(cells))
            out.lines.append("")
            continue
        style = block.find(f"{W}pPr/{W}pStyle")
        sid = style.get(f"{W}val", "") if style is not None else ""
        level = levels.get(sid)
        text = _text(_visible(block)).strip()
        if not text:
            continue
        if level is not None:
            out.heading(level, " ".join(text.split()))
        elif sid in listed or block.find(f"{W}pPr/{W}numPr") is not None:
            out.lines += [f"- {text}", ""]
        else:
            out.lines += [text, ""]
    out.flush()
    return out.sections


def _blocks(body: Element) -> list[Element]:
    """Paragraphs and tables in reading order, looking inside content controls (``w:sdt``)."""
    found: list[Element] = []
    for child in body:
        if child.tag in (f"{W}p", f"{W}tbl"):
            found.append(child)
        elif child.tag == f"{W}sdt" and (content := child.find(f"{W}sdtContent")) is not None:
            found += _blocks(content)
    return found
