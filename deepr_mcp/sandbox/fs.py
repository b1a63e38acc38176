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

from deepr_mcp.errors import NotFound, PathRejected

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


@contextlib.contextmanager
def open_dir(root: str, parts: list[str], shown: str, *, create: bool = False) -> Iterator[int]:
    """Descriptor of the directory ``parts`` below ``root``, walking without following links."""
    fd = os.open(root, _DIR_FLAGS)
    try:
        for name in parts:
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise NotFound(f"no such folder in the sandbox: {shown!r}") from None
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o755, dir_fd=fd)
                try:
                    child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    raise _reject_link(fd, name, shown, exc) from None
            except OSError as exc:
                raise _reject_link(fd, name, shown, exc) from None
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


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


def walk(top_fd: int, prefix: str = "") -> Iterator[Entry]:
    """Every file and folder below the directory ``top_fd``, by descriptor, never entering a link."""
    for dirpath, dirnames, filenames, dfd in os.fwalk(".", dir_fd=top_fd, follow_symlinks=False):
        rel = os.path.normpath(dirpath)
        prefix_here = prefix + ("" if rel == "." else rel + "/")
        for name in dirnames:
            if (info := _lstat(name, dfd)) is not None:
                yield Entry(prefix_here + name, 0, info.st_mtime, True)
        for name in filenames:
            if name.startswith(TMP_PREFIX):
                continue
            info = _lstat(name, dfd)
            if info is not None and stat.S_ISREG(info.st_mode):
                yield Entry(prefix_here + name, info.st_size, info.st_mtime, False)


def _lstat(name: str, dfd: int) -> os.stat_result | None:
    """``lstat`` that treats a name removed since the directory was read as absent."""
    try:
        return os.lstat(name, dir_fd=dfd)
    except FileNotFoundError:
        return None
