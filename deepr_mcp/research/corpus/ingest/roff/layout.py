"""What a formatted manual page is made of (headings, paragraphs, tagged items, code, tables) as Sections.

Both macro packages (man and mdoc) write into one ``Layout``, so a page reads the same whichever
its author used: located by ``title(section) > HEADING > Subheading``, an option's tag and its
meaning on one line (``-a, --all: do not ignore entries starting with .``), bullet and numbered
items as list lines, no-fill text as fenced code, table rows as ``cell | cell``.
"""

from __future__ import annotations

import re
import textwrap

from deepr_mcp.research.corpus.ingest.model import Section, fence

BULLETS = frozenset({"•", "*", "-", "o", "·", "+", "–", "—", "○", "□"})
TERM_CHARS = 100
"""A paragraph this short, with no sentence end, before an indented block reads as that block's term."""
_ENUMERATOR = re.compile(r"^[(\[]?(?:\d{1,3}|[A-Za-z]|[ivxIVX]{1,4})[.)\]]$")


class Layout:
    """A page under construction; ``sections()`` gives its located text."""

    def __init__(self) -> None:
        self.title = ""
        self._heads: list[tuple[int, str]] = []
        self._blocks: list[tuple[str, str, str]] = []  # (location, kind, text), kind: para, item or code
        self._lines: list[list[str]] = []  # the open paragraph, by output line (``.br``), in pieces
        self._glue = False  # the next words join the last without a space (``\c``, mdoc's Ns)
        self._tag: str | None = None
        self._more_tags: list[str] = []
        self._code: list[str] | None = None

    def heading(self, level: int, text: str) -> None:
        self.end_code()
        self.end_paragraph()
        self._heads = [(lvl, t) for lvl, t in self._heads if lvl < level]
        title = " ".join(text.split())
        if title:
            self._heads.append((level, title))

    def words(self, text: str, *, glue: bool = False) -> None:
        """Filled text: joined to the paragraph with a space, or without one after ``\\c`` or when ``glue``."""
        if self._code is not None:
            self.code_line(text)
            return
        text = text.replace("\t", " ")
        if not text.strip():
            return
        if not self._lines:
            self._lines.append([])
        line = self._lines[-1]  # pieces and the spaces between them, joined once the paragraph ends
        if line and not (self._glue or glue):
            line.append(" ")
        line.append(text.strip())
        self._glue = False

    def glue_next(self) -> None:
        self._glue = True

    def line_break(self) -> None:
        if self._code is not None:
            return
        if self._lines and self._lines[-1]:
            self._lines.append([])

    def item(self, tag: str) -> None:
        """The next paragraph is the description of ``tag`` (an option, a bullet, a number)."""
        self.end_paragraph()
        self._tag = " ".join(tag.split()) or None

    def more_tag(self, tag: str) -> None:
        """Another tag line for the same description (groff's ``.TQ``)."""
        tag = " ".join(tag.split())
        if tag:
            self._more_tags.append(tag)

    def indent(self) -> None:
        """``.RS``: a short one-line paragraph just before it is the term the indented text describes
        (``.PP``, ``\\fB--follow\\fR``, ``.RS 4`` is how DocBook and Asciidoctor write an option list)."""
        if self._tag is not None and not self._lines:  # a .TP or .IP tag still waiting for its text
            return
        if len(self._lines) == 1 and self._tag is None:
            term = " ".join("".join(self._lines[0]).split())
            if 0 < len(term) <= TERM_CHARS and not term.endswith((".", "!", "?", ",", ";")):
                self._lines, self._glue, self._tag = [], False, term
                return
        self.end_paragraph()

    def expect_tag(self) -> None:
        """``.TP``: the next line of text is the tag."""
        self.end_paragraph()
        self._tag = ""

    def end_paragraph(self) -> None:
        text = "\n".join(" ".join("".join(line).split()) for line in self._lines if line)
        text = text.strip()
        self._lines, self._glue = [], False
        tag, self._tag = ", ".join(x for x in (self._tag, *self._more_tags) if x) or None, None
        self._more_tags = []
        if tag and tag in BULLETS:
            if text:
                self._add("item", f"- {text}")
        elif tag and _ENUMERATOR.match(tag):
            if text:
                self._add("item", f"{tag} {text}")
        elif tag:
            joiner = " " if tag.endswith((":", "—", "-")) else ": "
            self._add("para", f"{tag}{joiner}{text}") if text else self._add("tags", tag)
        elif text:
            self._add("para", text)

    def start_code(self) -> None:
        if self._code is None:
            self.end_paragraph()
            self._code = []

    def code_line(self, text: str) -> None:
        if self._code is None:
            self.start_code()
        assert self._code is not None
        self._code.append(text.rstrip().replace("\t", "    "))

    def end_code(self) -> None:
        if self._code is None:
            return
        body, self._code = textwrap.dedent("\n".join(self._code)).strip("\n"), None
        if body.strip():
            self._add("code", fence(body))

    def mark(self) -> tuple[int, int]:
        """How much text there is so far: equal marks mean nothing was written in between."""
        return len(self._blocks), sum(len(piece) for line in self._lines for piece in line)

    @property
    def in_code(self) -> bool:
        return self._code is not None

    def table(self, rows: list[list[str]]) -> None:
        self.end_paragraph()
        lines = [" | ".join(cell for cell in row) for row in rows if any(cell.strip() for cell in row)]
        if lines:
            self._add("table", "\n".join(lines))

    def _add(self, kind: str, text: str) -> None:
        """A block under the current headings; list items, and tags without a description, run on as lines."""
        location = " > ".join(t for _, t in self._heads)
        if kind in ("item", "tags") and self._blocks and self._blocks[-1][:2] == (location, kind):
            self._blocks[-1] = (location, kind, self._blocks[-1][2] + "\n" + text)
        else:
            self._blocks.append((location, kind, text))

    def sections(self) -> list[Section]:
        """The page's text by heading, each location under the page's title (``ls(1) > OPTIONS``)."""
        self.end_code()
        self.end_paragraph()
        title = self._named_title()
        out: list[Section] = []
        offset = 0
        for location in dict.fromkeys(location for location, _, _ in self._blocks):
            text = "\n\n".join(t for where, _, t in self._blocks if where == location)
            full = " > ".join(x for x in (title, location) if x)
            out.append(Section(text, full, offset))
            offset += len(text) + 2
        return out

    def _named_title(self) -> str:
        """The title as the page's NAME line spells it (``.TH LS 1`` names ``ls(1)``), else as written."""
        name, _, section = self.title.partition("(")
        for _, kind, text in self._blocks[:1]:
            if kind == "para":
                first = re.split(r"[\s,]", text, maxsplit=1)[0]
                if first.lower() == name.lower() and first != name:
                    return f"{first}({section}" if section else first
        return self.title
