"""What one add may read: the files a path names, confined to roots and capped per call.

Over MCP the corpus is filled by whoever can call the server, and ``corpus_search`` serves the
text back to any caller, so what a call may read is bounded: only under the configured roots
(judged by where a path really leads, so ``..`` and symlinked paths cannot step out), never
through a symlink that leads out of them, and at most so many files and bytes per call. The CLI
passes no scope: the person at the terminal may add whatever they can read.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from deepr_mcp.errors import InvalidInput, NotFound
from deepr_mcp.research.corpus.ingest.formats import is_supported, supported_list
from deepr_mcp.research.corpus.ingest.walk import excluded_by, files_under

ESCAPED = "a symbolic link that leads outside the corpus roots: not followed"


@dataclass(frozen=True, slots=True)
class AddScope:
    """``roots`` (resolved folders; ``None`` = anywhere) and per-call caps (``None`` = none)."""

    roots: tuple[Path, ...] | None = None
    max_files: int | None = None
    max_bytes: int | None = None

    @classmethod
    def under(cls, roots: Sequence[Path], *, max_files: int, max_bytes: int) -> AddScope:
        return cls(tuple(Path(os.path.realpath(r)) for r in roots), max_files, max_bytes)

    def confine(self, target: Path) -> Path:
        """``target`` as it really resolves, if that lies under a root; otherwise a refusal naming the roots."""
        if self.roots is None:
            return target
        shown = ", ".join(str(r) for r in self.roots)
        if not target.is_absolute():
            raise InvalidInput(f"{target}: give an absolute path under a corpus root ({shown})")
        real = Path(os.path.realpath(target))
        if not self.inside(real):
            raise InvalidInput(
                f"{target}: outside the corpus roots ({shown}); corpus_add reads only under them "
                "(setting corpus.roots); symbolic links and '..' are judged by where they lead"
            )
        return real

    def inside(self, real: Path) -> bool:
        return self.roots is None or any(real.is_relative_to(root) for root in self.roots)

    def escapes(self, entry: Path) -> bool:
        """Whether a walked entry leads out of every root; only a symlink can (walks do not follow them)."""
        return self.roots is not None and entry.is_symlink() and not self.inside(Path(os.path.realpath(entry)))

    def cap(self, items: list[tuple[Path, str]]) -> tuple[list[tuple[Path, str]], list[str], str | None]:
        """The files this call may read, in order, the names of the ones left, and why they were left."""
        total = 0
        for index, (file, _) in enumerate(items):
            if self.max_files is not None and index >= self.max_files:
                why = f"stopped at {self.max_files} files, the most one call reads (setting corpus.max_files_per_call)"
                return items[:index], [name for _, name in items[index:]], why
            try:
                total += file.stat().st_size
            except OSError:
                continue  # reported as failed when it is read
            if self.max_bytes is not None and total > self.max_bytes:
                why = (
                    f"stopped before {items[index][1]}: it would take this call past {self.max_bytes:,} bytes, "
                    "the most one call reads (setting corpus.max_bytes_per_call)"
                )
                return items[:index], [name for _, name in items[index:]], why
        return items, [], None


@dataclass(slots=True)
class Plan:
    """What an add will read (``items``), and what it leaves out and why."""

    target: Path
    items: list[tuple[Path, str]] = field(default_factory=list)
    excluded: int = 0
    excluded_why: dict[str, int] = field(default_factory=dict)
    escaped: list[tuple[Path, str]] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    limit: str | None = None


def plan_add(path: Path | str, exclude: Sequence[str], scope: AddScope | None) -> Plan:
    """The files ``path`` names within ``scope``; a path with nothing to add is an error that says why."""
    scope = scope or AddScope()
    try:
        if "\x00" in str(path):
            raise ValueError("it contains a NUL byte")
        target = scope.confine(Path(path).expanduser())
        exists = target.exists()
    except (ValueError, OSError) as exc:  # a NUL byte, a name longer than the file system allows, ...
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InvalidInput(f"{str(path)[:200]!r} is not a usable path ({reason})") from None
    if not exists:
        raise NotFound(f"{target}: no such file or folder")
    plan = Plan(target)
    if target.is_dir():
        found = files_under(target, exclude, escapes=scope.escapes)
        plan.excluded, plan.excluded_why = found.excluded, dict(found.excluded_why)
        plan.escaped, items = found.escaped, found.files
        if not items and not plan.escaped:
            if found.excluded:
                patterns = ", ".join(repr(p) for p in exclude) or "the default rules"
                raise InvalidInput(
                    f"{target}: all {found.excluded} supported files are excluded by {patterns}; nothing was added"
                )
            raise InvalidInput(f"{target}: no supported files ({supported_list()}) in this folder")
    else:
        if not is_supported(target):
            raise InvalidInput(f"{target}: unsupported file type; supported: {supported_list()}")
        if excluded_by(target.name, exclude):
            raise InvalidInput(f"{target}: excluded by {', '.join(repr(p) for p in exclude)}; nothing was added")
        items = [(target, target.name)]
    plan.items, plan.left, plan.limit = scope.cap(items)
    if not plan.items and not target.is_dir() and plan.limit:
        raise InvalidInput(f"{target}: nothing was added: {plan.limit}")
    return plan
