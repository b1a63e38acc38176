"""What ``corpus add`` shows while it works: a redrawn bar on a terminal, one line per file otherwise.

Either way the run ends with one totals line (files, passages, skipped, failed, seconds), which is
what a log in CI or a pipe needs; the bar is for a person watching.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Mapping
from typing import TextIO

from deepr_mcp.research.corpus.ingest.report import AddReport, FileResult

BIG_FILE_BYTES = 5_000_000
"""About a second of extraction (PDF is slower); a file this big gets its own line before it is read."""


class Progress:
    """Plain lines, one per file outcome: safe for pipes, logs and CI (no terminal control codes)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.started = time.monotonic()

    def start(self, root: str, total: int, excluded: int, why: Mapping[str, int] | None = None) -> None:
        reasons = "; ".join(f"{reason}: {count}" for reason, count in (why or {}).items())
        note = f" ({excluded} excluded{': ' + reasons if reasons else ''})" if excluded else ""
        print(f"adding {root}: {total} files{note}", file=self.out, flush=True)

    def file_started(self, name: str, size: int) -> None:
        """A file big enough to take a while is announced before it is read (nothing else moves meanwhile)."""
        if size >= BIG_FILE_BYTES:
            self._clear()
            print(f"reading   {name} ({size / 1e6:.1f} MB)", file=self.out, flush=True)

    def _clear(self) -> None:
        """Nothing to clear between plain lines."""

    def file_done(self, result: FileResult, done: int, total: int, passages: int) -> None:
        where = f"[{done}/{total}, {clock(time.monotonic() - self.started)}{eta(self.started, done, total)}]"
        print(f"{describe(result)}  {where}", file=self.out, flush=True)

    def finish(self, report: AddReport) -> None:
        print(totals(report), file=self.out, flush=True)


class BarProgress(Progress):
    """A one-line bar redrawn in place; failures are printed above it as they happen."""

    def __init__(self, out: TextIO) -> None:
        super().__init__(out)
        self._last = 0.0
        self._skipped = 0

    def start(self, root: str, total: int, excluded: int, why: Mapping[str, int] | None = None) -> None:
        super().start(root, total, excluded, why)
        self._draw(0, total, 0)

    def file_done(self, result: FileResult, done: int, total: int, passages: int) -> None:
        self._skipped += result.status == "skipped"
        if result.status == "failed":
            self._clear()
            print(describe(result), file=self.out, flush=True)
        now = time.monotonic()
        if now - self._last >= 0.1 or done == total or result.status == "failed":
            self._last = now
            self._draw(done, total, passages)

    def finish(self, report: AddReport) -> None:
        self._clear()
        super().finish(report)

    def _draw(self, done: int, total: int, passages: int) -> None:
        width = max(10, min(40, shutil.get_terminal_size((80, 24)).columns - 60))
        filled = width * done // total if total else width
        seconds = time.monotonic() - self.started
        line = (
            f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files  {passages:,} passages  "
            f"{self._skipped} skipped  {clock(seconds)}{eta(self.started, done, total)}"
        )
        self.out.write("\r" + line + "\x1b[K")
        self.out.flush()

    def _clear(self) -> None:
        self.out.write("\r\x1b[K")
        self.out.flush()


def for_stream(out: TextIO) -> Progress:
    """The bar on a terminal, plain lines anywhere else."""
    isatty = getattr(out, "isatty", None)
    return BarProgress(out) if isatty is not None and isatty() else Progress(out)


def describe(result: FileResult) -> str:
    detail = f"({result.reason})" if result.reason else f"({result.passages} passages)"
    again = " [failed the same way last time]" if result.again else ""
    return f"{result.status:<9} {result.name or result.path} {detail}{again}"


def clock(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def eta(started: float, done: int, total: int) -> str:
    """``, ETA 1m20s`` from the pace so far (files per second), once there is a pace and work left."""
    elapsed = time.monotonic() - started
    if done == 0 or done >= total or elapsed < 1:
        return ""
    return f", ETA {clock(elapsed / done * (total - done))}"


def totals(report: AddReport) -> str:
    parts = [f"{len(report.files)} files", f"{report.passages:,} passages"]
    for status in ("added", "replaced", "unchanged", "skipped", "failed"):
        if count := report.count(status):
            parts.append(f"{count} {status}")
    if again := report.count("failed") - report.new_failures:
        parts.append(f"{again} of them failed the same way last time")
    if report.excluded:
        parts.append(f"{report.excluded} excluded")
    return f"done: {', '.join(parts)} in {report.seconds:.1f} s"
