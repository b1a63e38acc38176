"""Walk and remove whole sandbox trees of any depth, iteratively, one directory descriptor at a time.

``os.walk``, ``os.fwalk`` and ``shutil.rmtree`` recurse once per level (``RecursionError`` near
1,000 levels in CPython 3.11) or hold a descriptor per level; a tree planted 2,000 levels deep
broke listing, extraction and deletion. Here the walk keeps only names in memory: it enters a
child with ``O_NOFOLLOW | O_DIRECTORY`` relative to the open parent, checks that it entered the
directory it had just looked at, and climbs back through ``..``, checking again that it is where
it came from (so a directory moved out of the sandbox mid-walk ends the walk instead of leading
it outside). Links are never followed; non-directories are only looked at with ``lstat``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from deepr_mcp.errors import Conflict

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
MAX_NOTES = 20
"""Skipped items are reported one by one up to this many, then only counted."""


@dataclass(frozen=True, slots=True)
class Found:
    """One name met by the walk; ``fd`` is its parent directory, valid until the walk resumes."""

    rel: str
    name: str
    info: os.stat_result
    depth: int
    fd: int


@dataclass(slots=True)
class Skipped:
    """What a listing left out and why, in words a client can show as they are."""

    notes: list[str] = field(default_factory=list)
    more: int = 0

    def add(self, note: str) -> None:
        if len(self.notes) < MAX_NOTES:
            self.notes.append(note)
        else:
            self.more += 1

    def as_list(self) -> list[str]:
        return self.notes + ([f"... and {self.more} more skipped"] if self.more else [])


def _ident(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


@dataclass(slots=True)
class _Frame:
    name: str
    rel: str
    ident: tuple[int, int]
    pending: list[str]


def _names(fd: int) -> list[str]:
    names = os.listdir(fd)  # lists a duplicate of ``fd``; ``fd`` itself stays where it is
    names.sort(reverse=True)  # popped from the end: visited in name order
    return names


class Walk:
    """An iterative pre-order walk with a post-order ``on_leave`` callback, for listing and removal.

    ``entries()`` yields a ``Found`` for every name below the top (depth 1 is the top's own
    children); a directory is entered after it is yielded unless it is at ``max_depth``. When a
    directory is finished, ``on_leave(parent_fd, name)`` runs with its parent's descriptor.
    ``Found.rel`` is the path from the top with a ``max_depth``, and only the name without one.
    """

    def __init__(
        self, top_fd: int, prefix: str = "", *, max_depth: int | None = None, fix_permissions: bool = False
    ) -> None:
        self.top_fd = top_fd
        self.prefix = prefix
        self.max_depth = max_depth
        self.fix_permissions = fix_permissions
        self.too_deep: list[str] = []
        self.unreadable: list[tuple[str, str]] = []

    def entries(self, on_leave: Callable[[int, str], None] | None = None) -> Iterator[Found]:
        cur = os.dup(self.top_fd)
        try:
            stack = [_Frame("", self.prefix, _ident(os.fstat(cur)), _names(cur))]
            while stack:
                frame = stack[-1]
                if not frame.pending:
                    stack.pop()
                    if not stack:
                        break
                    try:
                        up = os.open("..", DIR_FLAGS, dir_fd=cur)
                    except FileNotFoundError:  # the folder it stands in was removed meanwhile
                        up = -1
                    os.close(cur)
                    cur = up if up >= 0 else os.dup(self.top_fd)
                    if up < 0 or _ident(os.fstat(cur)) != stack[-1].ident:
                        raise Conflict(
                            f"folder {frame.rel.rstrip('/')!r} was moved or removed while the sandbox was walked;"
                            " try again"
                        )
                    if on_leave is not None:
                        on_leave(cur, frame.name)
                    continue
                name = frame.pending.pop()
                try:
                    info = os.lstat(name, dir_fd=cur)
                except FileNotFoundError:
                    continue  # removed since the directory was read
                depth = len(stack)
                found = Found(frame.rel + name, name, info, depth, cur)
                yield found
                if not stat.S_ISDIR(info.st_mode):
                    continue
                if self.max_depth is not None and depth >= self.max_depth:
                    self.too_deep.append(found.rel)
                    continue
                child = self._enter(cur, found)
                if child is None:
                    continue
                try:
                    pending = _names(child)
                except OSError as exc:
                    os.close(child)
                    self.unreadable.append((found.rel, os.strerror(exc.errno or 0)))
                    continue
                os.close(cur)
                cur = child
                # Without a depth limit (removal, usage) only names are kept: paths of a tree
                # 100,000 deep would take memory in the square of its depth.
                stack.append(_Frame(name, found.rel + "/" if self.max_depth is not None else "", _ident(info), pending))
        finally:
            os.close(cur)

    def _enter(self, cur: int, found: Found) -> int | None:
        """The child directory's descriptor, or ``None`` if it is gone, unreadable or was swapped."""
        try:
            child = _open_dir(cur, found.name, fix_permissions=self.fix_permissions)
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                self.unreadable.append((found.rel, os.strerror(exc.errno or 0)))
            return None
        if _ident(os.fstat(child)) != _ident(found.info):
            os.close(child)
            self.unreadable.append((found.rel, "it was replaced while being walked"))
            return None
        return child


def _open_dir(parent_fd: int, name: str, *, fix_permissions: bool) -> int:
    """Open a directory without following a link; for removal, a cleared permission bit is set again."""
    try:
        return os.open(name, DIR_FLAGS, dir_fd=parent_fd)
    except PermissionError:
        if not fix_permissions:
            raise
        os.chmod(name, 0o700, dir_fd=parent_fd, follow_symlinks=False)  # never changes a link's target
        return os.open(name, DIR_FLAGS, dir_fd=parent_fd)


def remove_tree(parent_fd: int, name: str) -> None:
    """Remove ``name`` below ``parent_fd`` and everything in it, bottom-up, at any depth.

    Links are removed as names, never followed. Raises ``OSError`` if something could not be
    removed (the folder then still exists, with whatever was left).
    """
    try:
        info = os.lstat(name, dir_fd=parent_fd)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(name, dir_fd=parent_fd)
        return
    top = _open_dir(parent_fd, name, fix_permissions=True)
    try:
        walk = Walk(top, fix_permissions=True)
        for found in walk.entries(on_leave=_rmdir):
            if not stat.S_ISDIR(found.info.st_mode):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(found.name, dir_fd=found.fd)
    finally:
        os.close(top)
    try:
        os.rmdir(name, dir_fd=parent_fd)
    except FileNotFoundError:
        pass
    except OSError as exc:
        if walk.unreadable:
            where, why = walk.unreadable[0]
            raise OSError(exc.errno, f"could not remove {where!r}: {why}") from None
        raise


def _rmdir(parent_fd: int, name: str) -> None:
    with contextlib.suppress(FileNotFoundError, OSError):
        os.rmdir(name, dir_fd=parent_fd)
