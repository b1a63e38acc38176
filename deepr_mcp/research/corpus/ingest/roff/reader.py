"""roff input as a stream of text lines and requests, with the page's own definitions applied.

This is the part of troff that decides what the formatter sees: comments and continuation lines,
``.de`` macros (pod2man's ``.Vb``, Tcl's ``.CS``) expanded with their arguments, ``.ds`` strings
defined, ``.if``/``.ie``/``.el`` taken the way ``nroff`` takes them, ``.ig`` blocks skipped. Nothing
is ever run (``.pso``, ``.sy`` are dropped like any request no one handles) and every expansion
is bounded: macros ``MAX_NESTING`` deep and, in all, ``EXPANSION`` times the page's lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from deepr_mcp.research.corpus.ingest.roff.escapes import MAX_STRING, render
from deepr_mcp.research.corpus.ingest.roff.numeric import evaluate, numeric_prefix

MAX_NESTING = 20
EXPANSION = 20
"""Lines a page may produce through its own macros, per line it has (plus ``EXPANSION_FLOOR``)."""
EXPANSION_FLOOR = 10_000

PREDEFINED = {
    "lq": "“", "rq": "”", "R": "®", "Tm": "™", "S": "", "HF": "", "q": '"', "Lq": "“", "Rq": "”",
    "Pi": "π", "Ne": "≠", "Le": "≤", "Ge": "≥", "Lt": "<", "Gt": ">", "Pm": "±", "If": "∞", "Na": "NaN",
    "Ba": "|", "Am": "&", "Aq": "'", ".T": "utf8",
}  # fmt: skip
"""Strings the man and mdoc packages define, as groff's utf8 output prints them."""

_ARGUMENT = re.compile(r'"((?:[^"]|"")*)"?|((?:\\.|[^\s\\])(?:\\.|\S)*)', re.S)
_MACRO_ARGUMENT = re.compile(r"\\\$(\d|\*|@|#|\(\d\d|\[\d+\])")


@dataclass(frozen=True, slots=True)
class Request:
    """A control line: ``.TP 8`` is ``Request("TP", "8")``; ``args`` splits ``rest`` as troff does."""

    name: str
    rest: str

    @property
    def args(self) -> list[str]:
        return split_arguments(self.rest)


@dataclass(frozen=True, slots=True)
class Text:
    line: str


def split_arguments(rest: str) -> list[str]:
    """Arguments by spaces, ``"quoted with spaces"`` (``""`` a quote inside); a ``\\"`` comment ends them."""
    args: list[str] = []
    at, n = 0, len(rest)
    while at < n:
        while at < n and rest[at] in " \t":
            at += 1
        if at >= n or rest.startswith('\\"', at):
            break
        match = _ARGUMENT.match(rest, at)
        if match is None:  # a lone backslash at the end
            break
        if match.group(1) is not None:
            args.append(match.group(1).replace('""', '"'))
        else:
            token = match.group(2)
            comment = token.find('\\"')
            if comment >= 0 and not _escaped_at(token, comment):
                if comment:
                    args.append(token[:comment])
                break
            args.append(token)
        at = match.end()
    return args


def _escaped_at(text: str, index: int) -> bool:
    """Whether the backslash at ``index`` is itself escaped (an odd run of backslashes before it)."""
    run = 0
    while index - run - 1 >= 0 and text[index - run - 1] == "\\":
        run += 1
    return run % 2 == 1


@dataclass(slots=True)
class _Frame:
    lines: list[str]
    at: int = 0


@dataclass(slots=True)
class Reader:
    """Reads one page; ``fixed`` names the macros the caller interprets itself (a page can't redefine them)."""

    text: str
    fixed: frozenset[str]
    strings: dict[str, str] = field(default_factory=lambda: dict(PREDEFINED))
    macros: dict[str, list[str]] = field(default_factory=dict)
    _stack: list[_Frame] = field(default_factory=list)
    _else: list[bool] = field(default_factory=list)
    _budget: int = 0
    _next: str | None = None  # a one-line body to read before the frame's next line (.if n .sp)

    def events(self) -> Iterator[Request | Text]:
        lines = _joined(self.text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
        self._stack = [_Frame(lines)]
        self._budget = EXPANSION * len(lines) + EXPANSION_FLOOR
        while self._stack:
            frame = self._stack[-1]
            if self._next is not None:
                line, self._next = self._next, None
            elif frame.at >= len(frame.lines):
                self._stack.pop()
                continue
            else:
                line = frame.lines[frame.at]
                frame.at += 1
            self._budget -= 1
            if self._budget < 0:
                return
            if not line.startswith((".", "'")):
                yield Text(line)
                continue
            request = control(line)
            if request is None:
                continue
            if request.name in ("nx", "ex"):  # next file / exit: the page ends here
                return
            if request.name == "nop":  # groff: the rest of the line is text
                yield Text(request.rest)
                continue
            handled = self._definition(request, frame)
            if handled:
                continue
            if request.name in self.macros and request.name not in self.fixed:
                args = request.args
                self._push([_with_arguments(x, request.name, args) for x in self.macros[request.name]])
                continue
            yield request

    def _definition(self, request: Request, frame: _Frame) -> bool:
        """Handles the requests that change what later lines mean; False for every other request."""
        name, rest = request.name, request.rest
        if name in ("de", "de1", "am", "am1", "ig", "dei", "ami"):
            args = request.args
            end = "." + (args[1] if len(args) > 1 else "") if name != "ig" else "." + (args[0] if args else "")
            body = self._until(frame, end)
            if name != "ig" and args and name not in ("dei", "ami"):
                copied = [_copy_mode(x) for x in body]
                self.macros[args[0]] = (self.macros.get(args[0], []) if name.startswith("am") else []) + copied
            return True
        if name in ("ds", "ds1", "as", "as1"):
            key, _, value = rest.partition(" ")
            value = _uncommented(value.lstrip(" \t")).removeprefix('"')
            value = render_strings(_copy_mode(value), self.strings)
            previous = self.strings.get(key, "") if name.startswith("as") else ""
            self.strings[key] = (previous + value)[:MAX_STRING]
            return True
        if name in ("rm", "rn"):
            args = request.args
            for key in args[:1]:
                self.strings.pop(key, None)
                self.macros.pop(key, None)
            return True
        if name in ("if", "ie", "el", "while"):
            if name == "el":
                taken, body = not (self._else.pop() if self._else else True), rest
            else:
                taken, body = self._condition(rest)
                if name == "ie":
                    self._else.append(taken)
                if name == "while":
                    taken = False  # never loop on a page's say-so
            self._branch(frame, body, taken)
            return True
        if name == "do" and rest:  # groff: run the request with compatibility off, i.e. as is
            self._next = "." + rest
            return True
        return False

    def _until(self, frame: _Frame, end: str) -> list[str]:
        """The lines up to ``end`` (``..``), consumed from ``frame``: a definition's or a skipped block's body."""
        body: list[str] = []
        while frame.at < len(frame.lines):
            line = frame.lines[frame.at]
            frame.at += 1
            if line.startswith((".", "'")) and line[1:].strip().split(" ")[0] == end[1:] and end != ".":
                break
            if end == "." and re.match(r"^[.'][ \t]*\.(?:\s|\\\"|$)", line):
                break
            body.append(line)
        return body

    def _branch(self, frame: _Frame, body: str, taken: bool) -> None:
        """``body`` (one line, or a ``\\{ ... \\}`` block over several) run if ``taken``, else skipped."""
        body = body.lstrip(" \t")
        if not body.startswith("\\{"):
            if taken and body.strip():
                self._next = body
            return
        lines = [body[2:]]
        depth = _brace_depth(body)
        while depth > 0 and frame.at < len(frame.lines):
            line = frame.lines[frame.at]
            frame.at += 1
            depth += _brace_depth(line)
            lines.append(line)
        if taken:
            kept = [re.sub(r"\\[{}]", "", x) for x in lines]
            self._push([x for x in kept if x.strip() and x.strip() not in (".", "'")])

    def _push(self, lines: list[str]) -> None:
        """Lines to read next (a macro's body, a branch taken); past ``MAX_NESTING`` they are dropped."""
        self._budget -= len(lines)  # building the frame costs as much as reading it
        if len(self._stack) < MAX_NESTING and self._budget > 0:
            self._stack.append(_Frame(lines))

    def _condition(self, rest: str) -> tuple[bool, str]:
        """Whether a condition holds as nroff would have it, and the text after it."""
        rest = rest.lstrip(" \t")
        negate = rest.startswith("!")
        rest = rest[1:] if negate else rest
        first = rest[:1]
        if first in ("n", "t", "e", "o", "v", "h") and rest[1:2] in (" ", "\t", "\\", ""):
            held, after = first == "n", rest[1:]
        elif first in ("d", "r", "c", "m", "F", "S") and rest[1:2] in (" ", "\t"):
            parts = rest[1:].lstrip(" \t").split(None, 1)
            key = parts[0] if parts else ""
            held = key in self.strings or key in self.macros or key in self.fixed if first == "d" else first == "c"
            after = parts[1] if len(parts) > 1 else ""
        elif first and not first.isalnum() and first not in "(\\+-|!":
            compared = re.match(re.escape(first) + r"(.*?)" + re.escape(first) + r"(.*?)" + re.escape(first), rest)
            if compared is None:
                return False, ""
            held = render(compared.group(1), self.strings) == render(compared.group(2), self.strings)
            after = rest[compared.end() :]
        else:
            expression, _, after = numeric_prefix(rest)
            held = evaluate(expression) > 0
        return held != negate, after


def control(line: str) -> Request | None:
    """The request on a control line, or None for a comment or an empty request."""
    at = 1
    while at < len(line) and line[at] in " \t":
        at += 1
    end = at
    while end < len(line) and line[end] not in " \t\\":
        end += 1
    name = line[at:end]
    if not name:
        return None
    return Request(name, line[end:].lstrip(" \t"))


def render_strings(text: str, strings: dict[str, str]) -> str:
    """``\\*`` references expanded now, as troff's copy mode does when a string is defined."""
    if "\\*" not in text:
        return text
    return re.sub(
        r"\\\*(?:\((..)|\[([^\]\s]*)[^\]]*\]|(.))",
        lambda m: strings.get(m.group(1) or m.group(2) or m.group(3) or "", ""),
        text,
    )[:MAX_STRING]


def _joined(lines: list[str]) -> list[str]:
    """Continuation lines (ending in an unescaped backslash) joined to the next."""
    out: list[str] = []
    pending = ""
    for line in lines:
        if line.endswith("\\") and not _escaped_at(line, len(line) - 1):
            pending += line[:-1]
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending)
    return out


def _uncommented(text: str) -> str:
    """``text`` without a ``\\"`` comment (one not itself escaped) and what follows it."""
    at = text.find('\\"')
    while at >= 0 and _escaped_at(text, at):
        at = text.find('\\"', at + 2)
    return text if at < 0 else text[:at]


def _copy_mode(line: str) -> str:
    """What troff stores for a definition: ``\\\\`` read as one backslash (``\\\\$1`` becomes ``\\$1``)."""
    return line.replace("\\\\", "\\")


def _with_arguments(line: str, name: str, args: list[str]) -> str:
    def argument(match: re.Match[str]) -> str:
        key = match.group(1).strip("([]")
        if key in ("*", "@"):
            return " ".join(f'"{a}"' if key == "@" else a for a in args)
        if key == "#":
            return str(len(args))
        index = int(key)
        return name if index == 0 else (args[index - 1] if index <= len(args) else "")

    return _MACRO_ARGUMENT.sub(argument, line) if "\\$" in line else line


def _brace_depth(line: str) -> int:
    return len(re.findall(r"(?<!\\)\\\{", line)) - len(re.findall(r"(?<!\\)\\\}", line))
