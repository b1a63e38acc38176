"""Read a document's bytes only when it is a regular file, without ever blocking on what is not.

A named pipe called ``notes.md`` in an added folder used to stop ``corpus add`` for good: opening a
FIFO for reading waits for a writer. The file is opened non-blocking (which a regular file ignores),
its kind and size are read from the open descriptor (no swap between check and read), and anything
but a regular file is refused with the reason.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from deepr_mcp.errors import InvalidInput

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
"""The per-file limit when none is given (the default of ``corpus.max_file_bytes``)."""
LIMIT_SETTING = "(setting corpus.max_file_bytes, env DEEPR_CORPUS_MAX_FILE_BYTES)"
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_regular_file(path: Path, max_bytes: int) -> bytes:
    """The file's bytes; ``InvalidInput`` for a pipe, socket or device, or a file over ``max_bytes``."""
    fd = os.open(path, _FLAGS)
    with os.fdopen(fd, "rb", closefd=True) as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise InvalidInput(f"{path}: not a regular file (a pipe, socket or device): nothing to index")
        if info.st_size > max_bytes:
            raise InvalidInput(_too_big(path, info.st_size, max_bytes))
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew while being read
        raise InvalidInput(_too_big(path, len(data), max_bytes))
    return data


def _too_big(path: Path, size: int, max_bytes: int) -> str:
    return f"{path}: {size:,} bytes is over the {max_bytes:,}-byte limit per file {LIMIT_SETTING}"
