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
