"""An outbox and cursor in a SQLite file of their own, for state that is not in SQLite (sandbox files).

The change and its record cannot share a transaction here, so appliers must be idempotent
(a whole file's content, a deletion that tolerates absence): replaying an entry after a crash
between the change and the cursor is harmless.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from deepr_mcp.replication import outbox

__all__ = ["Journal"]


class Journal(outbox.LockedOutbox):
    """Thread-safe; the sandbox records through it and the follower drains it."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        for statement in outbox.SCHEMA_STATEMENTS:
            self._db.execute(statement)
        self.origin = outbox.origin(self._db)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def record(self, change: str) -> None:
        with self._lock:
            outbox.record(self._db, change)

    def set_cursor(self, entry_id: str) -> None:
        with self._lock:
            outbox.set_cursor(self._db, entry_id)
