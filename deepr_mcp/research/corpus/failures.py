"""Which files failed, on which bytes: re-adding the same bytes is not a new failure.

``corpus add`` exits 1 only when something new failed, so a folder holding one file nobody can fix
(a scanned PDF, a damaged page) does not fail every later run. Table ``failed_files`` (see
``schema``), local to this replica and never shared.
"""

from __future__ import annotations

import hashlib
import sqlite3
import stat
from pathlib import Path

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest.regular import read_regular_file


def content_hash(file: Path, max_bytes: int) -> str:
    """The file's sha256; for a file over ``max_bytes`` its size and change time instead (it is not read
    again); "" for what cannot be read or is no regular file (never counted as the same)."""
    try:
        return hashlib.sha256(read_regular_file(file, max_bytes)).hexdigest()
    except InvalidInput:  # too big, or a pipe or device: described by its metadata instead
        pass
    except OSError:
        return ""
    try:
        info = file.stat()
    except OSError:
        return ""
    return f"size {info.st_size} mtime {info.st_mtime_ns}" if stat.S_ISREG(info.st_mode) else ""


def record(db: sqlite3.Connection, key: str, file: Path, reason: str, max_bytes: int) -> bool:
    """Remember a failure; True when the same bytes had failed before."""
    before = db.execute("SELECT sha256 FROM failed_files WHERE path = ?", (key,)).fetchone()
    digest = content_hash(file, max_bytes)
    db.execute("INSERT OR REPLACE INTO failed_files (path, sha256, reason) VALUES (?, ?, ?)", (key, digest, reason))
    return before is not None and bool(digest) and before[0] == digest


def clear(db: sqlite3.Connection, key: str) -> None:
    """The file was added (or skipped on purpose): forget that it failed, writing only when it had."""
    if db.execute("SELECT 1 FROM failed_files WHERE path = ?", (key,)).fetchone() is not None:
        db.execute("DELETE FROM failed_files WHERE path = ?", (key,))
