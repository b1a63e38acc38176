"""One working directory per campaign, with quotas, that no path can escape.

Intermediate artefacts (plan, notes, raw sources) stay inside; only ``final_report.md`` and
the artefact list come out through ``extract_results``. Synchronous and thread-safe: the
async layer calls it through ``anyio.to_thread``.
"""

from __future__ import annotations

import errno
import os
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

from deepr_mcp.errors import Conflict, InvalidInput, NotFound, PathRejected, QuotaExceeded
from deepr_mcp.sandbox import fs
from deepr_mcp.sandbox.paths import check_sandbox_id, split_path

FINAL_REPORT = "final_report.md"


@dataclass(frozen=True, slots=True)
class Usage:
    bytes: int
    files: int


@dataclass(frozen=True, slots=True)
class Extracted:
    final_report: str | None
    artifacts: list[fs.Entry]


class Sandbox:
    """Operations on one campaign's directory; every path goes through ``split_path`` and ``fs``."""

    def __init__(self, root: Path, max_bytes: int, max_files: int, lock: threading.Lock) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self.max_files = max_files
        self._lock = lock

    def usage(self) -> Usage:
        with fs.open_dir(str(self.root), [], ".") as top:
            entries = [e for e in fs.walk(top) if not e.is_dir]
        return Usage(sum(e.size for e in entries), len(entries))

    def read(self, path: str, offset: int = 0, length: int | None = None) -> tuple[bytes, int]:
        if offset < 0 or (length is not None and length < 0):
            raise InvalidInput("offset and length must be zero or positive")
        parts = split_path(path)
        return fs.read_file(str(self.root), parts, path, offset, length)

    def read_text(self, path: str) -> str:
        data, _ = self.read(path)
        return data.decode("utf-8", errors="replace")

    def write(self, path: str, data: bytes, *, append: bool = False) -> int:
        """Create or replace (or append to) a file; all of it lands or none of it does."""
        parts = split_path(path)
        if parts[-1].startswith(fs.TMP_PREFIX):
            raise PathRejected(path, "reserved_name", f"names starting with {fs.TMP_PREFIX!r} are reserved")
        with self._lock, fs.open_dir(str(self.root), parts[:-1], path, create=True) as dfd:
            old = fs.existing_size(dfd, parts[-1], path)
            if append and old:
                existing, _ = fs.read_file(str(self.root), parts, path, 0, None)
                data = existing + data
            usage = self.usage()
            new_bytes = usage.bytes - (old or 0) + len(data)
            new_files = usage.files + (0 if old is not None else 1)
            if new_bytes > self.max_bytes:
                raise QuotaExceeded(
                    f"writing {path!r} would use {new_bytes:,} bytes; this sandbox allows {self.max_bytes:,}"
                )
            if new_files > self.max_files:
                raise QuotaExceeded(
                    f"writing {path!r} would make {new_files} files; this sandbox allows {self.max_files}"
                )
            try:
                fs.write_atomic(dfd, parts[-1], data)
            except IsADirectoryError:
                raise PathRejected(path, "is_directory", "a folder already has this name") from None
            except OSError as exc:
                if exc.errno == errno.ENOSPC:
                    raise QuotaExceeded("the disk is full") from None
                raise PathRejected(path, "os_error", os.strerror(exc.errno or 0)) from None
        return len(data)

    def write_text(self, path: str, text: str) -> None:
        self.write(path, text.encode("utf-8"))

    def delete(self, path: str) -> None:
        """Remove a file or an empty folder; the name itself is removed, never a link's target."""
        parts = split_path(path)
        with self._lock, fs.open_dir(str(self.root), parts[:-1], path) as dfd:
            try:
                os.unlink(parts[-1], dir_fd=dfd)
            except IsADirectoryError:
                try:
                    os.rmdir(parts[-1], dir_fd=dfd)
                except OSError as exc:
                    if exc.errno == errno.ENOTEMPTY:
                        raise Conflict(f"folder {path!r} is not empty; delete its files first") from None
                    raise
            except FileNotFoundError:
                raise NotFound(f"no such file or folder in the sandbox: {path!r}") from None

    def list(self, path: str = ".") -> list[fs.Entry]:
        parts = split_path(path, allow_root=True)
        with fs.open_dir(str(self.root), parts, path) as top:
            entries = list(fs.walk(top, prefix="".join(p + "/" for p in parts)))
        return sorted(entries, key=lambda e: e.path)


class SandboxManager:
    def __init__(self, base_dir: Path, *, max_bytes: int = 50 * 1024 * 1024, max_files: int = 2000) -> None:
        self.base_dir = Path(base_dir)
        self.max_bytes = max_bytes
        self.max_files = max_files
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self.base_dir.mkdir(parents=True, exist_ok=True)

    def _lock(self, sandbox_id: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(sandbox_id, threading.Lock())

    def create(self, campaign_id: str) -> Sandbox:
        check_sandbox_id(campaign_id)
        root = self.base_dir / campaign_id
        try:
            root.mkdir(mode=0o755)
        except FileExistsError:
            pass
        if root.is_symlink() or not root.is_dir():
            raise PathRejected(campaign_id, "not_a_directory", "the sandbox location is not a plain directory")
        return Sandbox(root, self.max_bytes, self.max_files, self._lock(campaign_id))

    def get(self, campaign_id: str) -> Sandbox:
        check_sandbox_id(campaign_id)
        root = self.base_dir / campaign_id
        if root.is_symlink() or not root.is_dir():
            raise NotFound(f"no sandbox for campaign {campaign_id!r}")
        return Sandbox(root, self.max_bytes, self.max_files, self._lock(campaign_id))

    def exists(self, campaign_id: str) -> bool:
        check_sandbox_id(campaign_id)
        root = self.base_dir / campaign_id
        return root.is_dir() and not root.is_symlink()

    def remove(self, campaign_id: str) -> None:
        sandbox = self.get(campaign_id)
        with self._lock(campaign_id):
            shutil.rmtree(sandbox.root)  # fd-based on Linux: never follows links inside

    def list_artifacts(self, campaign_id: str) -> list[fs.Entry]:
        return [e for e in self.get(campaign_id).list() if not e.is_dir]

    def extract_results(self, campaign_id: str) -> Extracted:
        """Only the final report's text and the list of artefacts: nothing intermediate leaves."""
        sandbox = self.get(campaign_id)
        try:
            report = sandbox.read_text(FINAL_REPORT)
        except NotFound:
            report = None
        return Extracted(final_report=report, artifacts=self.list_artifacts(campaign_id))

    def cleanup(self, keep_ids: set[str]) -> list[str]:
        """Remove sandboxes of campaigns that no longer exist; returns the removed ids."""
        removed = []
        for child in sorted(self.base_dir.iterdir()):
            name = child.name
            try:
                check_sandbox_id(name)
            except PathRejected:
                continue
            if name not in keep_ids and child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
                removed.append(name)
        return removed
