"""AsciiDoc by heading path, with listing, literal and source blocks kept as fenced code.

Read line by line, as Asciidoctor reads it, so that ``== x`` inside a listing block is code and a
``//`` comment is never text: section titles (``== Title``, Markdown's ``#``, and AsciiDoc 1's title
over an underline) make the heading path; ``----``, ``....`` and fenced blocks, ``[source]`` and
indented paragraphs come out as fenced code, verbatim; example, sidebar, quote and open blocks are
text; tables are rows of cells joined by `` | `` as the HTML reader writes them; list items stay one a
line; admonitions open with their label ("Warning: ..."), which the engine reads as a warning.
Comments, attribute entries, page breaks and block macros other than images (whose alt text stays)
are not text. Open blocks are a stack, not recursion, so thousands of nested delimiters are read in
one pass; an unterminated block runs to the end of the file (or of the block around it), as it does
in Asciidoctor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepr_mcp.research.corpus.ingest.asciidoc.inline import InlineAsciiDoc, strip_tags
from deepr_mcp.research.corpus.ingest.asciidoc.lines import (
    ADMONITIONS,
    BlockAttributes,
    attribute_entry,
    block_attributes,
    delimiter,
    description_item,
    hard_breaks,
    heading,
    image_alt,
    links_only,
    list_item,
    one_line,
    preprocess,
)
from deepr_mcp.research.corpus.ingest.asciidoc.output import Output, section_titles
from deepr_mcp.research.corpus.ingest.asciidoc.tables import table_rows
from deepr_mcp.research.corpus.ingest.model import NotContent, Section, fence

__all__ = ["ASCIIDOC_SUFFIXES", "asciidoc_sections"]

ASCIIDOC_SUFFIXES = (".adoc", ".asciidoc", ".asc")

_ARMOR = re.compile(r"\A\s*-----BEGIN PGP [A-Z ]+-----")
_COMMENT = re.compile(r"^//(?!//)")
_BLOCK_TITLE = re.compile(r"^\.(\.?[^ \t.].*)$")
_BREAK = re.compile(r"^(?:'{3,}|<{3,}|-{3}|\*{3}|_{3}|- - -|\* \* \*|_ _ _)$")
_BLOCK_MACRO = re.compile(r"^([a-z][\w-]*)::([^\s\[]*)\[(.*)\]$")
_ADMONITION = re.compile(rf"^({'|'.join(ADMONITIONS)}):[ \t]+(\S.*)$")
_AUTHOR_LINE = re.compile(r"^[^\s\[.=/:]")
_REVISION_LINE = re.compile(r"^(?:v?\d|\{)")
_ATTRIBUTE = re.compile(r"(?<!\\)\{([\w-]+)\}")
NAVIGATION_LINK_SHARE = 0.9
"""A file of list items whose text is this much link text is navigation: the share the HTML reader uses for
a list of links (a category label such as ``** Stylesheets`` among the links is allowed)."""
_CODE_STYLES = ("source", "listing", "literal")
_MATH_STYLES = ("stem", "latexmath", "asciimath")


def asciidoc_sections(text: str) -> list[Section]:
    """Sections of an AsciiDoc document; prose as plain text (``inline``), code as code.

    ``.asc`` also names OpenPGP's ASCII-armored keys and signatures (``release.tar.gz.asc``): those are
    skipped as not content rather than read as a page of base64."""
    if _ARMOR.match(text):
        raise NotContent("an OpenPGP key or signature (ASCII armor), not an AsciiDoc document")
    return _Reader(text).read()


@dataclass
class _Open:
    """An open example, sidebar, quote or open block: closed by the same delimiter line."""

    delimiter: str
    attribution: str


class _Reader:
    """One pass over a document's lines; each ``_step`` reads one block and moves the cursor past it."""

    def __init__(self, text: str) -> None:
        self.lines = preprocess([line.rstrip() for line in text.replace("\x00", "").splitlines()])
        self.attributes: dict[str, str] = {}
        self.titles = section_titles(self.lines)
        self.inline = InlineAsciiDoc(self.attributes, self.titles)
        self.out = Output()
        self.open: list[_Open] = []
        self.closers: set[str] = set()  # the open blocks' delimiters: each ends every block opened inside it
        self.pending = BlockAttributes()
        self.title = ""
        self.markers: list[str] = []  # the open list's marker kinds, outermost first
        self.counters: list[int] = []
        self.continued = False  # a "+" line attaches the next block to the list item above
        self.link_items = 0  # list items that are nothing but cross references or links, and their text
        self.link_chars = self.item_chars = 0
        self.i = 0

    def read(self) -> list[Section]:
        while self.i < len(self.lines):
            self._step()
        self._emit_title()
        self.out.flush()
        kinds = self.out.kinds
        links_only = self.link_chars >= NAVIGATION_LINK_SHARE * self.item_chars
        if self.link_items >= 3 and links_only and set(kinds) <= {"item", "title"}:
            raise NotContent("a navigation list (nothing but cross references), as an Antora nav.adoc is")
        return self.out.sections

    def _step(self) -> None:
        line = self.lines[self.i]
        if not line.strip():
            self.i += 1
            return
        if _COMMENT.match(line):  # between two lists, a comment ends the first (AsciiDoc's way to separate them)
            if not self.continued:
                self._end_list()
            self.i += 1
            return
        if entry := attribute_entry(line):
            self._define(*entry)
            return
        if line in self.closers:
            self._close(line)
            return
        if block_attributes(line, self.pending):
            self.i += 1
            return
        if (title := _BLOCK_TITLE.match(line)) and not delimiter(line):
            self.title = title.group(1)
            self.i += 1
            return
        if line == "+":
            self.continued = True
            self.i += 1
            return
        if _BREAK.match(line):
            self._end_block()
            self.i += 1
            return
        following = self.lines[self.i + 1] if self.i + 1 < len(self.lines) and not self.open else ""
        if found := heading(line, following):
            self._heading(*found)
        elif marker := delimiter(line):
            self._delimited(marker)
        elif macro := _BLOCK_MACRO.match(line):
            self._emit_title()
            alt = image_alt(macro.group(3)) if macro.group(1) == "image" else ""
            self.out.text(self.inline.text(alt))
            self.i += 1
        elif item := list_item(line):
            self._list_item(*item)
            return
        elif term := description_item(line):
            self._description(*term)
            return
        elif line[:1] in (" ", "\t"):
            self._literal_paragraph()
        else:
            self._paragraph()
        self._end_block()

    def _end_block(self) -> None:
        if not self.continued:
            self._end_list()
        self.continued = False
        self.pending = BlockAttributes()
        self.title = ""

    def _end_list(self) -> None:
        if self.markers:
            self.markers.clear()
            self.counters.clear()
            self.out.last = ""  # the next list item starts a new list, not a line of this one

    def _define(self, name: str, value: str | None) -> None:
        self.i += 1
        if value is None:
            self.attributes.pop(name, None)
            return
        parts = [value]
        while parts[-1].endswith("\\") and self.i < len(self.lines):  # a value continued on the next line
            parts[-1] = parts[-1][:-1].rstrip()
            parts.append(self.lines[self.i].strip())
            self.i += 1
        value = " ".join(parts)
        self.attributes[name] = _ATTRIBUTE.sub(lambda m: self.attributes.get(m.group(1).lower(), m.group(0)), value)

    def _heading(self, level: int, title: str, used: int) -> None:
        first = not self.out.has_text() and not self.out.heads
        self.i += used
        if self.open:  # a discrete heading inside a block: text, not a section
            self.out.text(self.inline.text(title))
            return
        self._emit_title()
        self.out.heading(level, self.inline.text(title))
        if first and level == 0:  # the document header's author and revision lines are not text
            for looks_right in (_AUTHOR_LINE, _REVISION_LINE):
                line = self.lines[self.i] if self.i < len(self.lines) else ""
                if not looks_right.match(line) or delimiter(line):
                    break
                self.i += 1

    def _emit_title(self) -> None:
        if self.title:
            self.out.text(self.inline.text(self.title), kind="title")
            self.title = ""

    def _verbatim(self, marker: str) -> list[str]:
        """The lines up to the closing delimiter (or the end of the file); the cursor moves past it."""
        closing = "```" if marker.startswith("```") else marker
        start = self.i + 1
        end = start
        while end < len(self.lines) and self.lines[end] != closing and self.lines[end] not in self.closers:
            end += 1
        self.i = end + 1 if end < len(self.lines) and self.lines[end] == closing else end
        return self.lines[start:end]

    def _delimited(self, marker: str) -> None:
        style = self.pending.style.lower()
        kind = marker[0]
        if kind == "/":
            self._verbatim(marker)
            return
        if kind in "|,:!" and marker[1:2] == "=":
            self._table(marker, self._verbatim(marker))
            return
        verbatim = kind in "-.`+" and marker != "--"
        if not verbatim and style not in (*_CODE_STYLES, "comment", "pass", *_MATH_STYLES):
            self._open_container(marker, style)
            return
        body = self._verbatim(marker)
        self._emit_title()
        if style == "comment":
            return
        if style in _MATH_STYLES:
            self.out.text("\n".join(body).strip())
        elif kind == "+" or style == "pass":
            self.out.text(" ".join(strip_tags("\n".join(body)).split()))
        else:
            self.out.block(fence(self._verbatim_text(body), self._language(marker)))

    def _verbatim_text(self, body: list[str]) -> str:
        """Code as written; attribute references filled in only where the block asks (``subs=attributes+``)."""
        code = "\n".join(body).strip("\n")
        if "attributes" not in self.pending.named.get("subs", ""):
            return code
        return _ATTRIBUTE.sub(lambda m: self.attributes.get(m.group(1).lower(), m.group(0)), code)

    def _language(self, marker: str) -> str:
        if marker.startswith("```"):
            return marker[3:].strip()
        positional = self.pending.positional
        language = self.pending.named.get("language", "")
        if positional and positional[0].lower() in ("source", ""):
            language = (positional[1] if len(positional) > 1 else "") or language
            language = language or self.attributes.get("source-language", "")
        return re.sub(r"[^\w+#.-]", "", language)

    def _open_container(self, marker: str, style: str) -> None:
        self.open.append(_Open(marker, self.pending.attribution))
        self.closers.add(marker)
        self.i += 1
        if style.upper() in ADMONITIONS:
            self.out.prefix = style.capitalize() + ": "
        self._emit_title()
        self.pending = BlockAttributes()
        self.continued = False

    def _close(self, marker: str) -> None:
        """Closes the block ``marker`` opened and any left open inside it (Asciidoctor cuts a block's body at
        its closing line first, so nothing inside can run past it)."""
        self.i += 1
        while self.open:
            closed = self.open.pop()
            self.closers.discard(closed.delimiter)
            self.out.prefix = ""
            if closed.attribution:
                self.out.text("\u2014 " + self.inline.text(closed.attribution))
            if closed.delimiter == marker:
                break
        self._end_block()

    def _table(self, marker: str, body: list[str]) -> None:
        self._emit_title()
        rows = []
        for row in table_rows(body, marker, self.pending.named):
            cells = [self.inline.text(" ".join(cell.split())) for cell in row]
            if any(cells):
                rows.append(" | ".join(cells))
        self.out.block("\n".join(rows))

    def _continuation(self, first: str) -> str:
        """A list item's or description's text: its line and the lines that follow it without a break."""
        lines = [first]
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if _COMMENT.match(line):
                self.i += 1
                continue
            if (
                not line.strip()
                or line in self.closers
                or line == "+"
                or delimiter(line.strip())
                or list_item(line)
                or description_item(line)
                or attribute_entry(line)
                or _BLOCK_TITLE.match(line)
                or re.match(r"^\[.*\]$", line)
            ):
                break
            lines.append(line.strip())
            self.i += 1
        return one_line(lines)

    def _list_item(self, marker: str, first: str) -> None:
        self.i += 1
        self._emit_title()
        kind = "ordered" if marker[0].isalnum() else marker
        kind = "callout" if marker.startswith("<") else kind
        if kind in self.markers:
            depth = self.markers.index(kind)
            del self.markers[depth + 1 :], self.counters[depth + 1 :]
        else:
            self.markers.append(kind)
            self.counters.append(0)
            depth = len(self.markers) - 1
        self.counters[depth] = int(marker[:-1]) if marker[:-1].isdigit() else self.counters[depth] + 1
        bullet = "- " if kind in ("*", "-") or kind.startswith("*") else f"{self.counters[depth]}. "
        source = self._continuation(first)
        text = self.inline.text(source)
        self.item_chars += len(text)
        if links_only(source):
            self.link_items += 1
            self.link_chars += len(text)
        self.out.text("  " * depth + bullet + text, kind="item")
        self.continued = False
        self.pending = BlockAttributes()

    def _description(self, term: str, description: str) -> None:
        self.i += 1
        self._emit_title()
        if description:
            description = self._continuation(description)
        else:
            j = self.i
            while j < len(self.lines) and not self.lines[j].strip():
                j += 1
            line = self.lines[j] if j < len(self.lines) else ""
            if line.strip() and not (delimiter(line.strip()) or list_item(line) or description_item(line)):
                if not (line == "+" or attribute_entry(line) or re.match(r"^\s*[\[.]", line)):
                    self.i = j + 1
                    description = self._continuation(line.strip())
        term = self.inline.text(term)
        joiner = " " if term.endswith((":", "?", ".", "!")) else ": "
        self.out.text(term + joiner + self.inline.text(description) if description else term)
        self.pending = BlockAttributes()
        self.continued = False

    def _literal_paragraph(self) -> None:
        body = []
        while self.i < len(self.lines) and self.lines[self.i].strip() and self.lines[self.i] not in self.closers:
            body.append(self.lines[self.i])
            self.i += 1
        width = min(len(line) - len(line.lstrip()) for line in body)
        self._emit_title()
        self.out.block(fence("\n".join(line[width:] for line in body)))

    def _paragraph(self) -> None:
        lines: list[str] = []
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if not line.strip() or (lines and (delimiter(line) or line == "+")):
                break
            if not _COMMENT.match(line):
                lines.append(line.strip())
            self.i += 1
        style = self.pending.style.lower()
        self._emit_title()
        if style == "comment":
            return
        if style in _CODE_STYLES:
            self.out.block(fence(self._verbatim_text(lines), self._language("")))
            return
        if style == "pass":
            self.out.text(" ".join(strip_tags("\n".join(lines)).split()))
            return
        if style in _MATH_STYLES:
            self.out.text("\n".join(lines))
            return
        if style.upper() in ADMONITIONS:
            self.out.prefix = style.capitalize() + ": "
        elif lines and (admonition := _ADMONITION.match(lines[0])):
            self.out.prefix = admonition.group(1).capitalize() + ": "
            lines[0] = admonition.group(2)
        if all(line.startswith(">") for line in lines):  # a Markdown-style quote, which Asciidoctor reads too
            lines = [line[1:].strip() for line in lines]
        self.out.text(self.inline.text("\n".join(hard_breaks(lines))))
        if attribution := self.pending.attribution:
            self.out.text("\u2014 " + self.inline.text(attribution))
