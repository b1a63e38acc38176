"""The rows of a transactional outbox and a follow cursor, in any SQLite database.

A replica writes each change to ``replication_outbox`` in the same transaction as the change
itself where it can (the corpus), so a change is never made without its record; the follower
deletes a row only once the shared log holds it. ``replication_state`` keeps this replica's
origin id (its own changes coming back are skipped) and how far it has applied the others'.
"""

from __future__ import annotations

import sqlite3
import threading
import uuid

__all__ = ["SCHEMA_STATEMENTS", "LockedOutbox", "cursor", "origin", "pending", "published", "record", "set_cursor"]

SCHEMA_STATEMENTS = (
    "CREATE TABLE IF NOT EXISTS replication_outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, change TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS replication_state (k TEXT PRIMARY KEY, v TEXT NOT NULL)",
)


def origin(db: sqlite3.Connection) -> str:
    """This replica's id for this database, made once and kept."""
    row = db.execute("SELECT v FROM replication_state WHERE k = 'origin'").fetchone()
    if row is not None:
        return row[0]
    made = uuid.uuid4().hex
    db.execute("INSERT INTO replication_state (k, v) VALUES ('origin', ?)", (made,))
    return made


def record(db: sqlite3.Connection, change: str) -> None:
    db.execute("INSERT INTO replication_outbox (change) VALUES (?)", (change,))


def pending(db: sqlite3.Connection, limit: int) -> list[tuple[int, str]]:
    return db.execute("SELECT seq, change FROM replication_outbox ORDER BY seq LIMIT ?", (limit,)).fetchall()


def published(db: sqlite3.Connection, seq: int) -> None:
    db.execute("DELETE FROM replication_outbox WHERE seq = ?", (seq,))


def cursor(db: sqlite3.Connection) -> str:
    """The id of the last entry applied from the shared log ("0": none yet, read from the start)."""
    row = db.execute("SELECT v FROM replication_state WHERE k = 'cursor'").fetchone()
    return row[0] if row is not None else "0"


def set_cursor(db: sqlite3.Connection, entry_id: str) -> None:
    db.execute(
        "INSERT INTO replication_state (k, v) VALUES ('cursor', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v",
        (entry_id,),
    )


class LockedOutbox:
    """The follower's side of an outbox held in ``self._db`` under ``self._lock`` (the corpus, a journal)."""

    _db: sqlite3.Connection
    _lock: threading.Lock

    def outbox(self, limit: int = 100) -> list[tuple[int, str]]:
        """Logged changes not yet published, oldest first, as (sequence, JSON)."""
        with self._lock:
            return pending(self._db, limit)

    def mark_published(self, seq: int) -> None:
        with self._lock:
            published(self._db, seq)

    def sync_cursor(self) -> str:
        with self._lock:
            return cursor(self._db)
