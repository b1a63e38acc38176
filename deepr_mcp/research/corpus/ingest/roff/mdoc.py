"""mdoc(7) pages (BSD: ``.Dd``, ``.Sh``, ``.Nm``, ``.Fl``, ``.Op`` ...) into a ``Layout``.

A line's macros are read the way mandoc reads them: a macro's arguments run to the next callable
macro, an enclosure (``.Op``, ``.Dq``) takes the rest of the line but its closing punctuation, and
lone punctuation sticks to its neighbour. Macro names never reach the text; flags read ``-x``.
"""

from __future__ import annotations

from collections.abc import Iterator

from deepr_mcp.research.corpus.ingest.roff.escapes import render
from deepr_mcp.research.corpus.ingest.roff.layout import Layout
from deepr_mcp.research.corpus.ingest.roff.man import SKIPPED_BLOCKS, _until
from deepr_mcp.research.corpus.ingest.roff.reader import Reader, Request, Text, control, split_arguments
from deepr_mcp.research.corpus.ingest.roff.tbl import table_rows

ENCLOSURES = {
    "Aq": "<>",
    "Bq": "[]",
    "Brq": "{}",
    "Dq": "“”",
    "Op": "[]",
    "Pq": "()",
    "Ql": "‘’",
    "Qq": '""',
    "Sq": "‘’",
}
OPENERS = {"Ao": "<", "Bo": "[", "Bro": "{", "Do": "“", "Oo": "[", "Po": "(", "Qo": '"', "So": "‘"}
CLOSERS = {"Ac": ">", "Bc": "]", "Brc": "}", "Dc": "”", "Oc": "]", "Pc": ")", "Qc": '"', "Sc": "’"}
SYSTEMS = {"At": "AT&T UNIX", "Bsx": "BSD/OS", "Bx": "BSD", "Dx": "DragonFly", "Fx": "FreeBSD",
           "Nx": "NetBSD", "Ox": "OpenBSD", "Ux": "UNIX"}  # fmt: skip
STANDARDS = {
    "-p1003.1": "IEEE Std 1003.1 (“POSIX.1”)", "-p1003.1-2001": "IEEE Std 1003.1-2001 (“POSIX.1”)",
    "-p1003.1-2008": "IEEE Std 1003.1-2008 (“POSIX.1”)", "-p1003.2": "IEEE Std 1003.2 (“POSIX.2”)",
    "-ansiC": "ANSI X3.159-1989 (“ANSI C89”)", "-isoC": "ISO/IEC 9899:1990 (“ISO C90”)",
    "-isoC-99": "ISO/IEC 9899:1999 (“ISO C99”)", "-isoC-2011": "ISO/IEC 9899:2011 (“ISO C11”)",
    "-xpg4": "X/Open Portability Guide Issue 4 (“XPG4”)", "-susv2": "Version 2 of the Single UNIX Specification",
    "-susv3": "Version 3 of the Single UNIX Specification", "-susv4": "Version 4 of the Single UNIX Specification",
}  # fmt: skip
WORDS = frozenset("Ad An Ar Cd Cm Dv Em Er Ev Fa Fd Fl Fn Fr Ft Ic In Li Lk Ms Mt Nm No Pa Sx Sy Tn Va Vt Xr".split())
SHAPED = frozenset("Xr Fn Fo Fc In Lk".split())
"""Word macros whose arguments make one thing (``Xr ls 1`` is ``ls(1)``)."""
CALLABLE = (
    WORDS
    | frozenset(ENCLOSURES)
    | frozenset(OPENERS)
    | frozenset(CLOSERS)
    | frozenset(SYSTEMS)
    | frozenset("Ns Pf Ta Xo Xc Eo Ec St Sm Ot Ex Rv Lb".split())
)
BLOCKS = frozenset("Dd Dt Os Sh Ss Pp Lp Bl El It Bd Ed D1 Dl Nd Rs Re Bk Ek Bf Ef Tg Db Fo Fc Ud Hf".split())
MACROS = CALLABLE | BLOCKS | frozenset("TS TE so br sp nf fi".split())
CLOSING = frozenset(". , ; : ? ! ) ]".split())
OPENING = frozenset("( [".split())
MAX_NESTING = 50


class _Phrase:
    """Words of one line with mdoc's spacing: none after an opener, none before closing punctuation."""

    def __init__(self, spacing: bool) -> None:
        self.parts: list[str] = []
        self.glue = False
        self.spacing = spacing

    def add(self, text: str, *, attach: bool = False) -> None:
        if not text:
            return
        if self.parts and not (attach or self.glue or not self.spacing):
            self.parts.append(" ")
        self.parts.append(text)
        self.glue = False

    def text(self) -> str:
        return "".join(self.parts)


class MdocPage:
    def __init__(self, reader: Reader, layout: Layout) -> None:
        self.reader, self.layout = reader, layout
        self.name = ""
        self.spacing = True
        self.lists: list[list[str | int]] = []  # per open .Bl: [kind, counter]
        self.rows: list[tuple[list[str], list[str]]] = []  # the open -column list's rows, last cell's more lines
        self.extended: list[str] | None = None  # an .It head continued by .Xo ... .Xc
        self.section = ""
        self.pointers: list[str] = []
        self.function: int | None = None  # arguments so far of an open .Fo
        self.after_type = False  # the last line was .Ft: the function it types goes on the same line

    def text(self, raw: str) -> str:
        return render(raw, self.reader.strings)

    def read(self) -> None:
        events = self.reader.events()
        for event in events:
            if isinstance(event, Text):
                if self.layout.in_code:
                    self.layout.code_line(self.text(event.line))
                elif not event.line.strip():
                    self.layout.end_paragraph()
                else:
                    self.words(self.text(event.line))
            else:
                self.request(event, events)
        if self.extended is not None:  # an .It ... Xo never closed: its head is what was read
            self.layout.item(" ".join(self.extended))
            self.extended = None
        while self.lists:  # lists the page never closed
            self.end_list()

    def words(self, text: str) -> None:
        if self.extended is not None:
            self.extended.append(text)
        elif self.rows and self.lists and self.lists[-1][0] == "-column":
            self.rows[-1][1].append(text)  # the last cell goes on: joined when the list ends
        else:
            self.layout.words(text)

    def request(self, request: Request, events: Iterator[Request | Text]) -> None:
        name, layout = request.name, self.layout
        rest = request.rest
        if self.lists and self.lists[-1][0] == "-column" and name == "It":
            rest = rest.replace("\t", " Ta ")
        args = split_arguments(rest)
        if name == "Dt":
            words = [self.text(a) for a in args]
            layout.title = f"{words[0]}({words[1]})" if len(words) > 1 else (words[0] if words else "")
        elif name in ("Sh", "Ss"):
            self.section = self.phrase(args)
            layout.end_code()
            layout.heading(1 if name == "Sh" else 2, self.section)
        elif name in ("Pp", "Lp", "Rs", "Re", "Bk", "Ek", "Bf", "Ef", "br", "sp"):
            if name in ("Pp", "Lp", "Re", "sp"):
                layout.end_paragraph()
        elif name == "Nd":
            self.words("- " + self.phrase(args))
        elif name == "Bl":
            kind = next((a for a in args if a.startswith("-") and a not in ("-offset", "-width", "-compact")), "-tag")
            layout.end_paragraph()
            self.lists.append([kind, 0])
        elif name == "El":
            self.end_list()
        elif name == "It":
            self.item(args)
        elif name == "Bd":
            layout.end_paragraph()
            if "-literal" in args or "-unfilled" in args:
                layout.start_code()
        elif name == "Ed":
            layout.end_code()
            layout.end_paragraph()
        elif name in ("D1", "Dl"):
            layout.end_paragraph()
            line = self.phrase(args)
            layout.code_line(line) if name == "Dl" else layout.words(line)
            layout.end_code() if name == "Dl" else layout.end_paragraph()
        elif name in ("nf", "fi"):
            layout.start_code() if name == "nf" else layout.end_code()
        elif name == "TS":
            layout.table(table_rows(_until(events, "TE"), self.text, self.line_text))
        elif name in SKIPPED_BLOCKS:
            _until(events, SKIPPED_BLOCKS[name])
        elif name == "so":
            self.pointers.append(rest.strip())
        elif name in CALLABLE or name in ("Fo", "Fc", "Ud", "Hf") or name.startswith("%"):
            self.line([name, *args])

    def line(self, tokens: list[str]) -> None:
        """A line of callable macros and words: to the open ``.It`` head, the open column, or the text."""
        first, synopsis = tokens[0], self.section.upper() == "SYNOPSIS"
        if synopsis and self.extended is None and first in ("Nm", "Ft", "In", "Fd", "Fo", "Fn"):
            if not (first in ("Fo", "Fn") and self.after_type):
                self.layout.line_break()
        self.after_type = first == "Ft"
        if self.function is not None and first in ("Fa", "Fc"):  # inside .Fo name ... .Fc
            text = self.phrase(tokens, macro_first=True) if first == "Fa" else ")" + (";" if synopsis else "")
            self.layout.words((", " if self.function and first == "Fa" else "") + text, glue=True)
            self.function = None if first == "Fc" else self.function + 1
            return
        text = self.phrase(tokens, macro_first=True)
        if first == "Fo":
            self.layout.words(text)
            self.layout.glue_next()
            self.function = 0
            return
        if first == "Fn" and synopsis:
            text += ";"
        if self.extended is not None and "Xc" in tokens:
            head = " ".join([*self.extended, text]).strip()
            self.extended = None
            self.layout.item(head) if head else self.layout.end_paragraph()
            return
        if tokens[0].startswith("%"):
            text = f"{text},"  # a reference's fields (author, title ...), one after another
        if text:
            self.words(text)

    def line_text(self, raw: str) -> str:
        """The words one source line prints by itself (inside a table's text block)."""
        if not raw.startswith((".", "'")):
            return self.text(raw)
        request = control(raw)
        if request is None or request.name not in CALLABLE:
            return ""
        return self.phrase([request.name, *request.args], macro_first=True)

    def item(self, args: list[str]) -> None:
        kind = str(self.lists[-1][0]) if self.lists else "-tag"
        if kind == "-column":
            self.layout.end_paragraph()
            self.rows.append((self.phrase(args).split("\t"), []))
        elif kind in ("-bullet", "-dash", "-hyphen"):
            self.layout.item("•")
        elif kind == "-enum":
            self.lists[-1][1] = int(self.lists[-1][1]) + 1
            self.layout.item(f"{self.lists[-1][1]}.")
        elif args and args[-1] == "Xo":
            self.layout.end_paragraph()
            self.extended = [self.phrase(args[:-1])]
        else:
            head = self.phrase(args)
            self.layout.item(head) if head else self.layout.end_paragraph()

    def end_list(self) -> None:
        if self.lists and self.lists.pop()[0] == "-column":
            rows = [[*cells[:-1], " ".join([cells[-1], *more])] for cells, more in self.rows]
            self.layout.table([[" ".join(cell.split()) for cell in row] for row in rows])
            self.rows = []
        self.layout.end_paragraph()

    def phrase(self, tokens: list[str], *, macro_first: bool = False) -> str:
        out = _Phrase(self.spacing)
        self.parse(tokens, 0, len(tokens), out, 0, macro_first=macro_first)
        return out.text()

    def parse(self, tokens: list[str], at: int, end: int, out: _Phrase, depth: int, *, macro_first: bool) -> None:
        while at < end:
            token = tokens[at]
            if (token in CALLABLE or (macro_first and at == 0)) and depth < MAX_NESTING:
                at = self.call(token, tokens, at + 1, end, out, depth)
            else:
                self.word(token, out)
                at += 1

    def word(self, token: str, out: _Phrase) -> None:
        if token in CLOSING:
            out.add(token, attach=True)
        elif token in OPENING:
            out.add(token)
            out.glue = True
        else:
            out.add(self.text(token))

    def call(self, name: str, tokens: list[str], at: int, end: int, out: _Phrase, depth: int) -> int:
        """One macro and its arguments; returns where the next token is."""
        if name in ENCLOSURES:
            close = end
            while close > at and tokens[close - 1] in CLOSING:
                close -= 1
            inner = _Phrase(self.spacing)
            self.parse(tokens, at, close, inner, depth + 1, macro_first=False)
            pair = ENCLOSURES[name]
            out.add(pair[0] + inner.text() + pair[1])
            return close
        stop = at
        while stop < end and tokens[stop] not in CALLABLE:
            stop += 1
        args = tokens[at:stop]
        words = [self.text(a) for a in args if a not in CLOSING and a not in OPENING]
        trailing = [a for a in args if a in CLOSING]
        if name in WORDS and name not in SHAPED:  # each word as it is (Fl: as a flag), punctuation in place
            if name == "Nm":
                self.name = self.name or (words[0] if words else "")
            if name == "An" and words[:1] in (["-split"], ["-nosplit"]):
                return stop
            if not words:
                out.add({"Fl": "-", "Ar": "file ...", "Nm": self.name}.get(name, ""))
                out.glue = name == "Fl" and stop < end  # Fl Fl apple: --apple
            for arg in args:
                if arg in CLOSING or arg in OPENING:
                    self.word(arg, out)
                else:
                    out.add(("-" if name == "Fl" else "") + self.text(arg))
            return stop
        if name in OPENERS:
            out.add(OPENERS[name])
            out.glue = True
        elif name in CLOSERS:
            out.add(CLOSERS[name], attach=True)
        elif name == "Eo":
            out.add("".join(words))
            out.glue = True
            words = []
        elif name == "Ec":
            out.add("".join(words), attach=True)
            words = []
        elif name == "Ns":
            out.glue = True
        elif name == "Pf":
            out.add(words[0] if words else "")
            out.glue = True
            words = words[1:]
        elif name == "Ta":
            out.add("\t", attach=True)
            out.glue = True
        elif name == "Sm":
            self.spacing = out.spacing = "off" not in words
            return stop
        elif name == "Xr" and len(words) >= 2:
            words = [f"{words[0]}({words[1]})", *words[2:]]
        elif name == "Fn" and words:
            words = [f"{words[0]}({', '.join(words[1:])})"]
        elif name == "Fo" and words:
            out.add(words[0] + "(")
            out.glue = True
            words = []
        elif name == "Fc":
            out.add(")", attach=True)
        elif name == "In" and words:
            words = [f"#include <{words[0]}>", *words[1:]]
        elif name == "Lk" and words:
            words = [" ".join(words[1:]) or words[0]]
        elif name == "St":
            words = [STANDARDS.get(w, w.lstrip("-")) for w in words]
        elif name in SYSTEMS:
            words = [f"{SYSTEMS[name]} {' '.join(words)}".strip()]
        elif name == "Ex":
            utility = next((w for w in words if w != "-std"), self.name)
            words = [f"The {utility} utility exits 0 on success, and >0 if an error occurs."]
        elif name == "Rv":
            function = next((w for w in words if w != "-std"), self.name)
            words = [
                f"The {function}() function returns the value 0 if successful; otherwise the value -1 "
                "is returned and the global variable errno is set to indicate the error."
            ]
        elif name == "Ud":
            words = ["currently under development."]
        elif name in ("Xo", "Xc", "Tg", "Db", "Hf", "Ot"):
            words = []
        for word in words:
            out.add(word)
        for mark in trailing:
            out.add(mark, attach=True)
        return stop
