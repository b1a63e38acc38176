"""File operations confined to one directory without a check-then-use race.

Every operation walks from a descriptor of the sandbox root, opening each directory with
``O_NOFOLLOW | O_DIRECTORY`` relative to its parent's descriptor, and opens or renames the
final name relative to the last one. A symlink at any level is refused rather than followed,
so swapping a directory for a link to the outside between a check and a write achieves
nothing: there is no separate check, only the open, and the open refuses the link.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from deepr_mcp.errors import DeeprError, NotFound, PathRejected, QuotaExceeded
from deepr_mcp.sandbox import tree

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
TMP_PREFIX = ".deepr-tmp-"


@dataclass(frozen=True, slots=True)
class Entry:
    path: str
    size: int
    mtime: float
    is_dir: bool


def _reject_link(parent_fd: int, name: str, shown: str, exc: OSError) -> PathRejected | NotFound:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        try:
            mode = os.lstat(name, dir_fd=parent_fd).st_mode
        except OSError:
            mode = 0
        if stat.S_ISLNK(mode):
            return PathRejected(shown, "symlink", f"'{name}' is a symbolic link; links are never followed")
        return PathRejected(shown, "not_a_directory", f"'{name}' is not a directory")
    if exc.errno == errno.ENOENT:
        return NotFound(f"no such file or folder in the sandbox: {shown!r}")
    return PathRejected(shown, "os_error", os.strerror(exc.errno or 0))


def open_root(root: str) -> int:
    """Descriptor of the sandbox root; a root removed meanwhile (a deleted campaign) is ``NotFound``."""
    try:
        return os.open(root, _DIR_FLAGS)
    except FileNotFoundError:
        raise NotFound("this sandbox no longer exists (its campaign was deleted)") from None


@contextlib.contextmanager
def open_dir(root: str, parts: list[str], shown: str) -> Iterator[int]:
    """Descriptor of the directory ``parts`` below ``root``, walking without following links."""
    fd = open_root(root)
    try:
        for name in parts:
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                raise NotFound(f"no such folder in the sandbox: {shown!r}") from None
            except OSError as exc:
                raise _reject_link(fd, name, shown, exc) from None
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def missing_dirs(root: str, parts: list[str], shown: str) -> int:
    """How many of the folders ``parts`` a write would have to create; links and files on the way refused.

    Looks only, creates nothing: a write checks its quota against this before making a folder.
    """
    fd = open_root(root)
    try:
        for done, name in enumerate(parts):
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                return len(parts) - done
            except OSError as exc:
                raise _reject_link(fd, name, shown, exc) from None
            os.close(fd)
            fd = child
        return 0
    finally:
        os.close(fd)


@contextlib.contextmanager
def make_dirs(root: str, parts: list[str], shown: str) -> Iterator[int]:
    """Like ``open_dir`` but creating missing folders; if the body fails, the folders made here go again.

    Every descriptor on the way stays open (the path is at most ``sandbox.max_depth`` deep) so
    the undo removes exactly the folders this call made, by descriptor, and only if still empty.
    """
    fds = [open_root(root)]
    made: list[tuple[int, str]] = []
    try:
        for name in parts:
            fd = fds[-1]
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                try:
                    os.mkdir(name, 0o755, dir_fd=fd)
                    made.append((fd, name))
                except FileExistsError:
                    pass
                except OSError as exc:
                    raise _os_refusal(shown, exc) from None
                try:
                    child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    raise _reject_link(fd, name, shown, exc) from None
            except OSError as exc:
                raise _reject_link(fd, name, shown, exc) from None
            fds.append(child)
        yield fds[-1]
    except BaseException:
        for parent_fd, name in reversed(made):
            with contextlib.suppress(OSError):
                os.rmdir(name, dir_fd=parent_fd)
        raise
    finally:
        for fd in reversed(fds):
            os.close(fd)


def _os_refusal(shown: str, exc: OSError) -> DeeprError:
    if exc.errno == errno.ENOSPC:
        return QuotaExceeded("the disk is full")
    return PathRejected(shown, "os_error", os.strerror(exc.errno or 0))


def read_file(root: str, parts: list[str], shown: str, offset: int, length: int | None) -> tuple[bytes, int]:
    """``(data, total_size)``; refuses links, devices, FIFOs and sockets (opened non-blocking)."""
    with open_dir(root, parts[:-1], shown) as dfd:
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd)
        except OSError as exc:
            if exc.errno == errno.EISDIR:
                raise PathRejected(shown, "is_directory", "this is a folder; use sandbox_list") from None
            raise _reject_link(dfd, parts[-1], shown, exc) from None
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise PathRejected(shown, "is_directory", "this is a folder; use sandbox_list")
            if not stat.S_ISREG(info.st_mode):
                raise PathRejected(shown, "not_regular_file", "only regular files can be read (no devices or pipes)")
            if info.st_nlink > 1:
                raise PathRejected(
                    shown,
                    "hard_link",
                    f"this file has {info.st_nlink} names (hard links) and one may be outside the sandbox;"
                    " only files with a single name are read",
                )
            want = info.st_size - offset if length is None else length
            return os.pread(fd, max(0, want), offset), info.st_size
        finally:
            os.close(fd)


def existing_size(dfd: int, name: str, shown: str) -> int | None:
    """Size of the regular file ``name`` in ``dfd``, ``None`` if absent; links and others refused."""
    try:
        info = os.lstat(name, dir_fd=dfd)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise PathRejected(shown, "symlink", f"'{name}' is a symbolic link; links are never replaced or followed")
    if not stat.S_ISREG(info.st_mode):
        raise PathRejected(shown, "not_regular_file", f"'{name}' exists and is not a regular file")
    return info.st_size


def write_atomic(dfd: int, name: str, data: bytes) -> None:
    """Write a temp file next to ``name`` and rename it over; a failure leaves no trace."""
    tmp = f"{TMP_PREFIX}{secrets.token_hex(6)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dfd)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dfd)
        raise


def walk(top_fd: int, prefix: str = "", *, max_depth: int | None = None) -> Iterator[Entry]:
    """Every file and folder below ``top_fd`` (all depths unless ``max_depth``), never entering a link."""
    for found in tree.Walk(top_fd, prefix, max_depth=max_depth).entries():
        if entry := as_entry(found):
            yield entry


def as_entry(found: tree.Found) -> Entry | None:
    """A listing entry for a regular file or a folder; ``None`` for links, pipes, devices, temp files."""
    mode = found.info.st_mode
    if stat.S_ISDIR(mode):
        return Entry(found.rel, 0, found.info.st_mtime, True)
    if stat.S_ISREG(mode) and not found.name.startswith(TMP_PREFIX):
        return Entry(found.rel, found.info.st_size, found.info.st_mtime, False)
    return None
