"""Which files failed, on which bytes: re-adding the same bytes is not a new failure.

``corpus add`` exits 1 only when something new failed, so a folder holding one file nobody can fix
(a scanned PDF, a damaged page) does not fail every later run. Table ``failed_files`` (see
``schema``), local to this replica and never shared.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path


def content_hash(file: Path) -> str:
    """The file's sha256, or "" when it cannot be read (an unreadable file never counts as the same)."""
    try:
        return hashlib.sha256(file.read_bytes()).hexdigest()
    except OSError:
        return ""


def record(db: sqlite3.Connection, key: str, file: Path, reason: str) -> bool:
    """Remember a failure; True when the same bytes had failed before."""
    before = db.execute("SELECT sha256 FROM failed_files WHERE path = ?", (key,)).fetchone()
    digest = content_hash(file)
    db.execute("INSERT OR REPLACE INTO failed_files (path, sha256, reason) VALUES (?, ?, ?)", (key, digest, reason))
    return before is not None and bool(digest) and before[0] == digest


def clear(db: sqlite3.Connection, key: str) -> None:
    """The file was added (or skipped on purpose): forget that it failed, writing only when it had."""
    if db.execute("SELECT 1 FROM failed_files WHERE path = ?", (key,)).fetchone() is not None:
        db.execute("DELETE FROM failed_files WHERE path = ?", (key,))
