"""Sections to passages of ~700 characters: paragraphs packed together, code blocks never cut mid-line.

A passage never ends on prose that leaves its sentence open ("you could run" before a command, a
run-in heading before its text) when what follows still fits under MAX_CHARS; otherwise the open
piece moves on to start the next passage.

A passage's id is a hash of its text, so the same paragraph in two files (a licence notice, a
shared warning) is one passage however many files hold it. A short passage ("New in version
3.5.") means nothing without its place, so its location is hashed with it: the same note under
two different API entries stays two passages, each cited from where it is.
"""

from __future__ import annotations

import hashlib
import re

from deepr_mcp.research.corpus.ingest.model import Chunk, Section, fence

TARGET_CHARS = 700
MAX_CHARS = 1100
"""No passage is longer (the engine's prompt estimates rely on it); longer code is split at lines."""
MIN_WORDS = 3
CONTEXT_FREE_CHARS = 100
"""Passages shorter than this are identified by location and text, longer ones by text alone."""

_OPEN = re.compile(r"^(`{3,}|~{3,})([\w+#.-]*)\s*$")
_SENTENCE_END = re.compile(r"[.!?:;)\]\"'\u2019\u201d]\s*$")
_LIST_OR_TABLE = re.compile(r"^\s*(?:[-*+]|\d+[.)]|\|)\s|^.+ \| .+$")


def passage_id(text: str, location: str = "") -> str:
    key = text if len(text) >= CONTEXT_FREE_CHARS else f"{location}\x00{text}"
    return "p" + hashlib.sha256(key.encode()).hexdigest()[:16]


def blocks_of(text: str) -> list[tuple[int, str, bool]]:
    """``(offset, text, is_code)`` per paragraph; a fenced block is one block, blank lines and all."""
    out: list[tuple[int, str, bool]] = []
    lines = text.split("\n")
    offsets, at = [], 0
    for line in lines:
        offsets.append(at)
        at += len(line) + 1
    i, para_start = 0, None
    while i < len(lines):
        opened = _OPEN.match(lines[i])
        if opened:
            if para_start is not None:
                out.append(_prose(offsets[para_start], lines[para_start:i]))
                para_start = None
            marker, j = opened.group(1), i + 1
            while j < len(lines) and lines[j].rstrip() != marker:
                j += 1
            out.append((offsets[i], "\n".join(lines[i : j + 1]), True))
            i = j + 1
            continue
        if not lines[i].strip():
            if para_start is not None:
                out.append(_prose(offsets[para_start], lines[para_start:i]))
                para_start = None
        elif para_start is None:
            para_start = i
        i += 1
    if para_start is not None:
        out.append(_prose(offsets[para_start], lines[para_start:]))
    return [b for b in out if b[1].strip()]


def _prose(offset: int, lines: list[str]) -> tuple[int, str, bool]:
    """Whitespace squashed; line breaks kept only where they mean something (lists, table rows)."""
    squashed = [" ".join(line.split()) for line in lines if line.strip()]
    keep_lines = any(_LIST_OR_TABLE.match(line) for line in lines[1:])
    return offset, ("\n" if keep_lines else " ").join(squashed), False


def _split_prose(text: str) -> list[str]:
    """A paragraph over MAX_CHARS, cut at line breaks, then sentences, then words."""
    pieces: list[str] = []
    for unit in text.split("\n") if "\n" in text else [text]:
        if len(unit) <= MAX_CHARS:
            pieces.append(unit)
            continue
        for sentence in re.split(r"(?<=[.!?])\s+", unit):
            at = 0  # cut by position: re-slicing the rest each time is quadratic on a 10 MB line
            while len(sentence) - at > MAX_CHARS:
                cut = sentence.rfind(" ", at, at + MAX_CHARS)
                cut = cut if cut > at else at + MAX_CHARS
                pieces.append(sentence[at:cut])
                at = cut + 1 if sentence[cut : cut + 1] == " " else cut
            pieces.append(sentence[at:])
    return _pack([p for p in pieces if p], "\n" if "\n" in text else " ")


def _split_code(block: str) -> list[str]:
    """A code block over MAX_CHARS as several fenced blocks, cut at blank lines where possible."""
    lines = block.split("\n")
    language = _OPEN.match(lines[0]).group(2)  # type: ignore[union-attr]
    body = lines[1:-1] if len(lines) > 1 else []
    budget = MAX_CHARS - len(fence("", language)) - 1
    parts: list[list[str]] = [[]]
    for line in body:
        while len(line) > budget:  # a minified line: cut it, there is no better place
            parts.append([line[:budget]])
            line = line[budget:]
            parts.append([])
        size = sum(len(x) + 1 for x in parts[-1])
        if parts[-1] and size + len(line) + 1 > budget:
            blank = max((k for k, x in enumerate(parts[-1]) if not x.strip()), default=0)
            if blank > len(parts[-1]) // 2:  # cut at the last blank line in the second half
                parts[-1], carry = parts[-1][:blank], parts[-1][blank + 1 :]
                parts.append(carry)
            else:
                parts.append([])
        parts[-1].append(line)
    return [fence("\n".join(p).strip("\n"), language) for p in parts if "".join(p).strip()]


def _pack(pieces: list[str], joiner: str) -> list[str]:
    out: list[str] = []
    for piece in pieces:
        if out and len(out[-1]) + len(joiner) + len(piece) <= TARGET_CHARS:
            out[-1] += joiner + piece
        else:
            out.append(piece)
    return out


def chunk(sections: list[Section]) -> list[Chunk]:
    """Passages in document order; paragraphs packed up to TARGET_CHARS, none over MAX_CHARS."""
    out: list[Chunk] = []
    for section in sections:
        buffer: list[tuple[int, str]] = []
        for offset, text, is_code in blocks_of(section.text):
            pieces = [text] if len(text) <= MAX_CHARS else (_split_code(text) if is_code else _split_prose(text))
            for piece in pieces:
                size = sum(len(t) + 2 for _, t in buffer) + len(piece)
                if buffer and size > TARGET_CHARS:
                    if _unfinished(buffer[-1][1]) and size <= MAX_CHARS:
                        pass  # the sentence runs on into this block (code, a list): keep them together
                    elif _unfinished(buffer[-1][1]) and len(buffer) > 1:
                        carried = buffer.pop()  # a run-in heading or a lead-in goes with what it leads to
                        out.append(_make_chunk(section, buffer))
                        buffer = [carried]
                    else:
                        out.append(_make_chunk(section, buffer))
                        buffer = []
                buffer.append((offset, piece))
        if buffer:
            out.append(_make_chunk(section, buffer))
    seen: set[str] = set()
    unique = []
    for c in out:
        if len(re.findall(r"\w+", c.text)) >= MIN_WORDS and c.id not in seen:
            seen.add(c.id)
            unique.append(c)
    return unique


def _unfinished(text: str) -> bool:
    """Prose that stops without ending its sentence ("you could run", a run-in heading)."""
    return not _OPEN.match(text.split("\n", 1)[0]) and not _SENTENCE_END.search(text)


def _make_chunk(section: Section, pieces: list[tuple[int, str]]) -> Chunk:
    text = "\n\n".join(t for _, t in pieces)
    start = section.start + pieces[0][0]
    return Chunk(passage_id(text, section.location), text, section.location, start, start + len(text))
