"""One working directory per campaign, with quotas, that no path can escape.

Intermediate artefacts (plan, notes, raw sources) stay inside; only ``final_report.md`` and
the artefact list come out through ``extract_results``. Synchronous and thread-safe: the
async layer calls it through ``anyio.to_thread``.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from deepr_mcp.errors import Conflict, InvalidInput, NotFound, PathRejected, QuotaExceeded
from deepr_mcp.replication.journal import Journal
from deepr_mcp.replication.sync import LocalSync, ReplicaSync
from deepr_mcp.sandbox import fs, shared, tree
from deepr_mcp.sandbox.paths import check_sandbox_id, split_path
from deepr_mcp.sandbox.shared import SandboxChange

FINAL_REPORT = "final_report.md"


REPORT_MAX = 4 * 1024 * 1024
"""``extract_results`` returns at most this much of the final report; ``sandbox_read`` pages through the rest."""
TRASH = ".deleting"
"""Sandboxes being deleted are moved here first; the move is the durable mark of a deletion under way."""


@dataclass(frozen=True, slots=True)
class Usage:
    bytes: int
    files: int
    folders: int = 0

    @property
    def entries(self) -> int:
        """What ``sandbox.max_files`` counts: files and folders."""
        return self.files + self.folders


@dataclass(frozen=True, slots=True)
class Listing:
    entries: list[fs.Entry]
    skipped: list[str]


@dataclass(frozen=True, slots=True)
class Extracted:
    final_report: str | None
    artifacts: list[fs.Entry]
    skipped: list[str] = field(default_factory=list)


class Sandbox:
    """Operations on one campaign's directory; every path goes through ``split_path`` and ``fs``."""

    def __init__(
        self,
        root: Path,
        max_bytes: int,
        max_files: int,
        lock: threading.Lock,
        max_depth: int = 32,
        record: Callable[..., None] | None = None,
    ) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self.max_files = max_files
        self.max_depth = max_depth
        self._lock = lock
        self._record = record or (lambda *change: None)
        """With a shared store, tells the other replicas (``sandbox/shared.py``) what changed."""

    def _parts(self, path: str, *, allow_root: bool = False) -> list[str]:
        return split_path(path, allow_root=allow_root, max_depth=self.max_depth)

    def usage(self) -> Usage:
        """Bytes, files and folders at every depth; counting stops once past the file quota."""
        size = files = folders = 0
        top = fs.open_root(str(self.root))
        try:
            for found in tree.Walk(top).entries():
                entry = fs.as_entry(found)
                if entry is None:
                    continue
                folders += entry.is_dir
                files += not entry.is_dir
                size += entry.size
                if files + folders > self.max_files:
                    break
        finally:
            os.close(top)
        return Usage(size, files, folders)

    def read(self, path: str, offset: int = 0, length: int | None = None) -> tuple[bytes, int]:
        if offset < 0 or (length is not None and length < 0):
            raise InvalidInput("offset and length must be zero or positive")
        parts = self._parts(path)
        return fs.read_file(str(self.root), parts, path, offset, length)

    def read_text(self, path: str) -> str:
        data, _ = self.read(path)
        return data.decode("utf-8", errors="replace")

    def write(self, path: str, data: bytes, *, append: bool = False) -> int:
        """Create or replace (or append to) a file; all of it lands or none of it does.

        Names, depth, quota and file count (new folders included) are checked before anything
        is created; folders made for a write that then fails are removed again.
        """
        parts = self._parts(path)
        if parts[-1].startswith(fs.TMP_PREFIX):
            raise PathRejected(path, "reserved_name", f"names starting with {fs.TMP_PREFIX!r} are reserved")
        root = str(self.root)
        with self._lock:
            missing = fs.missing_dirs(root, parts[:-1], path)
            old = None
            if not missing:
                with fs.open_dir(root, parts[:-1], path) as dfd:
                    old = fs.existing_size(dfd, parts[-1], path)
            if append and old:
                existing, _ = fs.read_file(root, parts, path, 0, None)
                data = existing + data
            self._check_quota(path, usage=self.usage(), old=old, new=len(data), new_folders=missing)
            with fs.make_dirs(root, parts[:-1], path) as dfd:
                try:
                    fs.write_atomic(dfd, parts[-1], data)
                except IsADirectoryError:
                    raise PathRejected(path, "is_directory", "a folder already has this name") from None
                except OSError as exc:
                    if exc.errno == errno.ENOSPC:
                        raise QuotaExceeded("the disk is full") from None
                    raise PathRejected(path, "os_error", os.strerror(exc.errno or 0)) from None
            self._record("write", path, data)
        return len(data)

    def _check_quota(self, path: str, *, usage: Usage, old: int | None, new: int, new_folders: int) -> None:
        new_bytes = usage.bytes - (old or 0) + new
        if new_bytes > self.max_bytes:
            raise QuotaExceeded(
                f"writing {path[:80]!r} would use {new_bytes:,} bytes; this sandbox allows {self.max_bytes:,}"
                " (setting sandbox.max_bytes)"
            )
        if usage.entries > self.max_files:  # ``usage`` stops counting here
            raise QuotaExceeded(
                f"this sandbox already holds more than {self.max_files} files and folders, all it allows"
                " (setting sandbox.max_files); delete some first"
            )
        new_entries = usage.entries + new_folders + (0 if old is not None else 1)
        if new_entries > self.max_files:
            raise QuotaExceeded(
                f"writing {path[:80]!r} would make {new_entries} files and folders"
                f" ({new_folders} new folders); this sandbox allows {self.max_files} (setting sandbox.max_files)"
            )

    def write_text(self, path: str, text: str) -> None:
        self.write(path, text.encode("utf-8"))

    def delete(self, path: str) -> None:
        """Remove a file or an empty folder; the name itself is removed, never a link's target."""
        parts = self._parts(path)
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
            self._record("delete", path)

    def list(self, path: str = ".") -> list[fs.Entry]:
        return self.listing(path).entries

    def listing(self, path: str = ".") -> Listing:
        """Files and folders below ``path``, within ``max_depth`` and ``max_files``; what was left out is said."""
        parts = self._parts(path, allow_root=True)
        skipped = tree.Skipped()
        entries: list[fs.Entry] = []
        with fs.open_dir(str(self.root), parts, path) as top:
            walk = tree.Walk(top, "".join(p + "/" for p in parts), max_depth=self.max_depth - len(parts))
            for found in walk.entries():
                entry = fs.as_entry(found)
                if entry is None:
                    if not found.name.startswith(fs.TMP_PREFIX):
                        skipped.add(f"{found.rel[:200]}: {_kind(found.info.st_mode)}, not listed")
                    continue
                if len(entries) >= self.max_files:
                    skipped.add(f"listing stopped after {self.max_files} entries (setting sandbox.max_files)")
                    break
                entries.append(entry)
        for rel in walk.too_deep:
            skipped.add(
                f"{rel[:200]}: its contents are deeper than {self.max_depth} levels (setting sandbox.max_depth),"
                " not listed"
            )
        for rel, why in walk.unreadable:
            skipped.add(f"{rel[:200]}: not listed ({why})")
        return Listing(sorted(entries, key=lambda e: e.path), skipped.as_list())


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link (links are never followed)"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


class SandboxManager:
    def __init__(
        self, base_dir: Path, *, max_bytes: int = 50 * 1024 * 1024, max_files: int = 2000, max_depth: int = 32
    ) -> None:
        self.base_dir = Path(base_dir)
        self.max_bytes = max_bytes
        self.max_files = max_files
        self.max_depth = max_depth
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self.base_dir.mkdir(parents=True, exist_ok=True)
        self.journal: Journal | None = None
        """Set by ``share``: every change is then recorded for the other replicas."""
        self.sync: ReplicaSync = LocalSync()
        """With replicas, the sandbox follower: ``durable`` before acknowledging, ``caught_up`` before reading."""

    def _lock(self, sandbox_id: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(sandbox_id, threading.Lock())

    def _sandbox(self, campaign_id: str, root: Path, *, journaled: bool = True) -> Sandbox:
        record = functools.partial(self._record, campaign_id) if journaled and self.journal is not None else None
        return Sandbox(root, self.max_bytes, self.max_files, self._lock(campaign_id), self.max_depth, record)

    def create(self, campaign_id: str, *, journaled: bool = True) -> Sandbox:
        check_sandbox_id(campaign_id)
        root = self.base_dir / campaign_id
        made = True
        try:
            root.mkdir(mode=0o755)
        except FileExistsError:
            made = False
        if root.is_symlink() or not root.is_dir():
            raise PathRejected(campaign_id, "not_a_directory", "the sandbox location is not a plain directory")
        if made and journaled and self.journal is not None:
            self._record(campaign_id, "create")
        return self._sandbox(campaign_id, root, journaled=journaled)

    # Sharing with other replicas (see sandbox/shared.py): the follower drains and feeds these.

    def share(self, journal: Journal) -> None:
        self.journal = journal

    def _record(self, campaign_id: str, op: str, path: str = "", data: bytes = b"") -> None:
        assert self.journal is not None
        self.journal.record(SandboxChange(op, campaign_id, self.journal.origin, path, data).to_json())  # type: ignore[arg-type]

    def outbox(self, limit: int = 100) -> list[tuple[int, str]]:
        return self.journal.outbox(limit) if self.journal is not None else []

    def mark_published(self, seq: int) -> None:
        if self.journal is not None:
            self.journal.mark_published(seq)

    def sync_cursor(self) -> str:
        return self.journal.sync_cursor() if self.journal is not None else "0"

    def apply_entry(self, entry_id: str, change: str) -> bool:
        if self.journal is None:
            raise RuntimeError("apply_entry needs share(journal) first")
        return shared.apply_entry(self, self.journal, entry_id, change)

    def get(self, campaign_id: str) -> Sandbox:
        check_sandbox_id(campaign_id)
        root = self.base_dir / campaign_id
        if root.is_symlink() or not root.is_dir():
            raise NotFound(f"no sandbox for campaign {campaign_id!r}")
        return self._sandbox(campaign_id, root)

    def exists(self, campaign_id: str) -> bool:
        check_sandbox_id(campaign_id)
        root = self.base_dir / campaign_id
        return root.is_dir() and not root.is_symlink()

    def list_artifacts(self, campaign_id: str) -> list[fs.Entry]:
        return [e for e in self.get(campaign_id).list() if not e.is_dir]

    def extract_results(self, campaign_id: str) -> Extracted:
        """Only the final report's text and the list of artefacts: nothing intermediate leaves."""
        sandbox = self.get(campaign_id)
        listing = sandbox.listing()
        skipped = list(listing.skipped)
        report = None
        try:
            data, size = sandbox.read(FINAL_REPORT, 0, REPORT_MAX)
            report = data.decode("utf-8", errors="replace")
            if size > REPORT_MAX:
                skipped.append(
                    f"{FINAL_REPORT}: only its first {REPORT_MAX:,} of {size:,} bytes are here; sandbox_read pages"
                )
        except NotFound:
            pass
        except InvalidInput as exc:  # a folder, a link, a pipe or a hard link where the report should be
            skipped.append(f"{FINAL_REPORT}: not read: {exc.message}")
        artifacts = [e for e in listing.entries if not e.is_dir]
        return Extracted(final_report=report, artifacts=artifacts, skipped=skipped)

    # Removal: any depth, never following a link; deletion of a campaign survives a crash at any point.

    def remove(self, campaign_id: str) -> None:
        """Remove a campaign's sandbox and everything in it (no error if there is none)."""
        check_sandbox_id(campaign_id)
        with self._lock(campaign_id), _dir_fd(self.base_dir) as base:
            tree.remove_tree(base, campaign_id)

    def begin_delete(self, campaign_id: str) -> None:
        """Move the sandbox into the trash (or leave an empty one there): from here the deletion is durable.

        ``pending_deletions`` finds it after a crash, so startup can finish the record and the files.
        """
        check_sandbox_id(campaign_id)
        trash = self.base_dir / TRASH
        trash.mkdir(exist_ok=True)
        with self._lock(campaign_id), _dir_fd(self.base_dir) as base, _dir_fd(trash) as bin_fd:
            if self.exists(campaign_id):
                tree.remove_tree(bin_fd, campaign_id)  # an earlier, unfinished attempt
                os.rename(campaign_id, campaign_id, src_dir_fd=base, dst_dir_fd=bin_fd)
            else:
                with contextlib.suppress(FileNotFoundError):  # a link or a file planted in its place
                    os.unlink(campaign_id, dir_fd=base)
                with contextlib.suppress(FileExistsError):
                    os.mkdir(campaign_id, 0o700, dir_fd=bin_fd)
            os.fsync(base)
            os.fsync(bin_fd)
        if self.journal is not None:
            self._record(campaign_id, "remove")

    def finish_delete(self, campaign_id: str) -> None:
        """Remove what ``begin_delete`` moved aside."""
        check_sandbox_id(campaign_id)
        trash = self.base_dir / TRASH
        if trash.is_dir():
            with _dir_fd(trash) as bin_fd:
                tree.remove_tree(bin_fd, campaign_id)

    def pending_deletions(self) -> list[str]:
        """Campaigns whose deletion began and did not finish (the process stopped in between)."""
        return _ids_in(self.base_dir / TRASH)

    def ids(self) -> set[str]:
        """Campaign ids that have a sandbox folder."""
        return set(_ids_in(self.base_dir))

    def cleanup(self, keep_ids: set[str]) -> list[str]:
        """Remove sandboxes of campaigns that no longer exist; returns the removed ids."""
        removed = []
        for name in _ids_in(self.base_dir):
            if name not in keep_ids:
                self.remove(name)
                removed.append(name)
        return removed


def _ids_in(folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    found = []
    for child in sorted(folder.iterdir()):
        try:
            check_sandbox_id(child.name)
        except PathRejected:
            continue
        if child.is_dir() and not child.is_symlink():
            found.append(child.name)
    return found


@contextlib.contextmanager
def _dir_fd(path: Path) -> Iterator[int]:
    fd = os.open(path, tree.DIR_FLAGS)
    try:
        yield fd
    finally:
        os.close(fd)
