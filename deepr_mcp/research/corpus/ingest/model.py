"""What ingest produces: located sections of a file, then passages ready to store."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Section:
    """Text under one heading path (``"tarfile > Extraction filters"``) or PDF page; code is fenced."""

    text: str
    location: str
    start: int


@dataclass(frozen=True, slots=True)
class Chunk:
    """One passage: ``id`` is a hash of its text alone, so the same text in two files is one passage."""

    id: str
    text: str
    location: str
    start: int
    end: int


class Sections:
    """Collects body lines under a heading path and cuts a Section at every heading: the reading of every
    line-oriented format (Markdown, reStructuredText, AsciiDoc) ends in one of these."""

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.heads: list[tuple[int, str]] = []
        self.lines: list[str] = []
        self.offset = 0

    def heading(self, level: int, title: str) -> None:
        self.flush()
        while self.heads and self.heads[-1][0] >= level:
            self.heads.pop()
        self.heads.append((level, title.strip()))

    def flush(self) -> None:
        text = "\n".join(self.lines).strip("\n")
        if text.strip():
            self.sections.append(Section(text, " > ".join(h for _, h in self.heads if h), self.offset))
            self.offset += len(text) + 2
        self.lines = []


class NotContent(Exception):
    """The file is a navigation page (index, table of contents, search page): skipped, not failed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def fence(code: str, language: str = "") -> str:
    """A fenced code block whose fence is longer than any backtick run inside the code."""
    longest = max((len(run) for run in re.findall(r"`{3,}", code)), default=2)
    marker = "`" * (longest + 1)
    return f"{marker}{language}\n{code}\n{marker}"
