"""man(7) pages (``.TH``, ``.SH``, ``.TP`` ...) into a ``Layout``; requests nobody handles are dropped.

A request that takes its text from the next line when it has no arguments (``.SH``, ``.B``, and
``.TP``'s tag) leaves that wish pending until a line of text comes. Alternating-font macros
(``.BR ls (1)``) join their arguments without spaces, as they print.
"""

from __future__ import annotations

from collections.abc import Iterator

from deepr_mcp.research.corpus.ingest.roff.escapes import render
from deepr_mcp.research.corpus.ingest.roff.layout import Layout
from deepr_mcp.research.corpus.ingest.roff.reader import Reader, Request, Text, control
from deepr_mcp.research.corpus.ingest.roff.tbl import table_rows

FONT_WORDS = frozenset({"B", "I", "SM", "SB", "R"})
FONT_ALTERNATING = frozenset({"BR", "RB", "BI", "IB", "IR", "RI"})
PARAGRAPH = frozenset({"PP", "P", "LP", "HP", "RE", "YS", "ns", "ce", "bp"})
MACROS = (
    FONT_WORDS
    | FONT_ALTERNATING
    | PARAGRAPH
    | frozenset("TH SH SS IP TP TQ RS br sp nf fi EX EE UR UE MT ME MR OP SY TS TE so".split())
)
"""Names this module interprets; a page's ``.de`` cannot redefine them (it can ``.PS``, which is pic's
only until a page says otherwise)."""
SKIPPED_BLOCKS = {"EQ": "EN", "PS": "PE"}
"""eqn and pic source: not words a reader would search for."""


class ManPage:
    def __init__(self, reader: Reader, layout: Layout) -> None:
        self.reader, self.layout = reader, layout
        self.pending: str | None = None  # "heading1", "heading2", "tag", "tag+", "words"
        self.link: tuple[str, tuple[int, int]] | None = None  # a .UR/.MT target and how much text preceded it
        self.pointers: list[str] = []  # .so targets

    def text(self, raw: str) -> str:
        return render(raw, self.reader.strings)

    def read(self) -> None:
        events = self.reader.events()
        for event in events:
            if isinstance(event, Text):
                self.line(event.line)
            else:
                self.request(event, events)

    def line(self, raw: str) -> None:
        if self.layout.in_code:
            self.layout.code_line(self.text(raw))
            return
        if not raw.strip():
            if self.pending is None:
                self.layout.end_paragraph()  # a blank line in filled text is a paragraph break
            return
        if raw[:1] in " \t" and self.pending is None:
            self.layout.line_break()
        text = self.text(raw)
        # "the \c" keeps its space before the next line's words; "word\c" joins them
        self.emit(text, glue_after=raw.rstrip().endswith("\\c") and not text[-1:].isspace())

    def emit(self, text: str, *, glue_after: bool = False) -> None:
        """Text from a line or a font macro: a heading, a tag, or words, whichever is pending."""
        pending, self.pending = self.pending, None
        if pending and pending.startswith("heading"):
            self.layout.heading(int(pending[-1]), text)
        elif pending == "tag":
            self.layout.item(text)
        elif pending == "tag+":
            self.layout.more_tag(text)
        else:
            self.layout.words(text)
            if glue_after:
                self.layout.glue_next()

    def request(self, request: Request, events: Iterator[Request | Text]) -> None:
        name, layout = request.name, self.layout
        if name in FONT_WORDS or name in FONT_ALTERNATING:
            args = request.args
            if not args:
                self.pending = self.pending or "words"
                return
            joiner = " " if name in FONT_WORDS else ""
            self.emit(joiner.join(self.text(a) for a in args))
        elif name == "TH":
            args = [self.text(a) for a in request.args]
            if args:
                layout.title = f"{args[0]}({args[1]})" if len(args) > 1 and args[1] else args[0]
        elif name in ("SH", "SS"):
            level = 1 if name == "SH" else 2
            layout.end_code()
            self.pending = None  # a .TP whose tag never came
            if request.args:
                layout.heading(level, " ".join(self.text(a) for a in request.args))
            else:
                self.pending = f"heading{level}"
        elif name in PARAGRAPH:
            layout.end_paragraph()
        elif name == "RS":
            layout.indent()
        elif name == "IP":
            args = request.args
            tag = self.text(args[0]) if args else ""
            layout.item(tag) if tag.strip() else layout.end_paragraph()
        elif name == "TP":
            layout.expect_tag()
            self.pending = "tag"
        elif name == "TQ":
            self.pending = "tag+"
        elif name == "br":
            layout.line_break()
        elif name == "sp":
            layout.code_line("") if layout.in_code else layout.end_paragraph()
        elif name in ("nf", "EX"):
            layout.start_code()
        elif name in ("fi", "EE"):
            layout.end_code()
        elif name in ("UR", "MT"):
            self.link = (self.text(request.rest.strip()), self.layout.mark())
        elif name in ("UE", "ME"):
            self.close_link(request)
        elif name == "MR":
            args = [self.text(a) for a in request.args]
            if args:
                self.emit(f"{args[0]}({args[1] if len(args) > 1 else ''}){''.join(args[2:])}")
        elif name == "SY":  # a synopsis: the command's name, then its options as text
            layout.end_paragraph()
            self.emit(" ".join(self.text(a) for a in request.args))
        elif name == "OP":
            self.emit("[" + " ".join(self.text(a) for a in request.args) + "]")
        elif name == "TS":
            rows = table_rows(_until(events, "TE"), self.text, self.line_text)
            layout.table(rows)
        elif name in SKIPPED_BLOCKS:
            _until(events, SKIPPED_BLOCKS[name])
        elif name == "so":
            self.pointers.append(request.rest.strip())

    def line_text(self, raw: str) -> str:
        """The words one source line prints by itself (inside a table's text block)."""
        if not raw.startswith((".", "'")):
            return self.text(raw)
        request = control(raw)
        if request is None or not (request.name in FONT_WORDS or request.name in FONT_ALTERNATING):
            return ""
        return (" " if request.name in FONT_WORDS else "").join(self.text(a) for a in request.args)

    def close_link(self, request: Request) -> None:
        if self.link is None:
            return
        target, mark = self.link
        self.link = None
        if self.layout.mark() == mark and target:  # no words between: the address is the link's text
            self.emit(target)
        trailing = "".join(self.text(a) for a in request.args)
        if trailing:
            self.layout.words(trailing, glue=True)


def _until(events: Iterator[Request | Text], end: str) -> list[str]:
    """Source lines up to the request ``end`` (requests inside kept as lines for the table reader)."""
    lines: list[str] = []
    for event in events:
        if isinstance(event, Text):
            lines.append(event.line)
        elif event.name == end:
            break
        else:
            lines.append(f".{event.name} {event.rest}")
    return lines
