"""The outcome of adding files: one result per file, and the run's totals."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Status = Literal["added", "unchanged", "replaced", "skipped", "failed"]


@dataclass(frozen=True, slots=True)
class FileResult:
    path: str
    """The document key: the absolute path (or a URL for fetched pages)."""
    status: Status
    passages: int = 0
    reason: str | None = None
    name: str = ""
    """What the file is shown as: its path relative to the folder that was added."""
    again: bool = False
    """Failed before on the same bytes: not a new failure."""


@dataclass(slots=True)
class AddReport:
    files: list[FileResult] = field(default_factory=list)
    excluded: int = 0
    excluded_why: dict[str, int] = field(default_factory=dict)
    """How many of ``excluded`` each reason left out (an exclude pattern, a page's source beside it, ...)."""
    seconds: float = 0.0
    left: list[str] = field(default_factory=list)
    """Files a per-call limit left unread (by the name they would be shown as), in order."""
    limit: str | None = None
    """Which limit stopped the add, when one did."""

    def count(self, status: str) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def new_failures(self) -> int:
        """Failed files that had not failed before on the same bytes (what a re-run should exit 1 on)."""
        return sum(1 for f in self.files if f.status == "failed" and not f.again)

    @property
    def passages(self) -> int:
        return sum(f.passages for f in self.files if f.status in ("added", "replaced"))
