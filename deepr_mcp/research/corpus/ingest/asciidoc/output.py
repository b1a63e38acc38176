"""Where the AsciiDoc reader writes: sections cut at headings, and the section titles that cross
references resolve to, found before reading so that ``<<id>>`` above its section reads as its title."""

from __future__ import annotations

from deepr_mcp.research.corpus.ingest.asciidoc.inline import InlineAsciiDoc
from deepr_mcp.research.corpus.ingest.asciidoc.lines import (
    BlockAttributes,
    attribute_entry,
    block_attributes,
    delimiter,
    heading,
    section_id,
)
from deepr_mcp.research.corpus.ingest.model import Sections

__all__ = ["Output", "section_titles"]


class Output(Sections):
    """Text blocks under a heading path (``Sections``), with what AsciiDoc adds: an admonition's label put
    before its block, list items kept one a line, and the kinds of block written."""

    def __init__(self) -> None:
        super().__init__()
        self.prefix = ""  # an admonition's "Warning: ", put before the block's first text
        self.last = ""
        self.kinds: dict[str, int] = {}  # blocks written, by kind: a file of nothing but link items is navigation

    def heading(self, level: int, title: str) -> None:
        super().heading(level, title)
        self.last = ""

    def text(self, text: str, kind: str = "text") -> None:
        """A paragraph, or a list item (items follow each other without a blank line: one list)."""
        if not text.strip():
            return
        text, self.prefix = self.prefix + text, ""
        if not (kind == "item" and self.last == "item"):
            self.lines.append("")
        self.lines.extend(text.split("\n"))
        self.last = kind
        self.kinds[kind] = self.kinds.get(kind, 0) + 1

    def block(self, text: str) -> None:
        """Code or a table: the label, if any, stands alone before it."""
        if not text.strip():
            return
        if self.prefix:
            self.text(self.prefix.rstrip())
        self.lines += ["", text]
        self.last = "block"
        self.kinds["block"] = self.kinds.get("block", 0) + 1

    def has_text(self) -> bool:
        return bool(self.sections or any(line.strip() for line in self.lines))


def section_titles(lines: list[str]) -> dict[str, str]:
    """Section ids (``[[id]]``, ``[#id]`` or the id Asciidoctor derives from the title) to their titles."""
    plain = InlineAsciiDoc({}, {})
    titles: dict[str, str] = {}
    verbatim, anchor, previous = "", "", ""
    attributes: dict[str, str] = {}
    for k, line in enumerate(lines):
        if verbatim:
            verbatim = "" if line == verbatim else verbatim
            continue
        marker = delimiter(line)
        if marker and marker[0] in "-.+/`|,:!" and marker != "--":
            verbatim = "```" if marker.startswith("```") else marker
            continue
        if entry := attribute_entry(line):
            attributes[entry[0]] = entry[1] or ""
        found_anchor = BlockAttributes()
        if block_attributes(line, found_anchor):
            anchor = found_anchor.id or anchor
            continue
        following = lines[k + 1] if k + 1 < len(lines) else ""
        found = heading(line, following) if not previous.strip() else None
        if found:
            title = plain.text(found[1])
            titles.setdefault(anchor or section_id(title, attributes), title)
        anchor, previous = "", line
    return titles
