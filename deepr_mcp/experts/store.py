"""The expert store seam and its embedded default (SQLite, WAL)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Protocol

import anyio

from deepr_mcp.errors import Conflict, InvalidInput, NotFound
from deepr_mcp.experts.models import NAME, Expert
from deepr_mcp.jobs.models import utcnow


class ExpertStore(Protocol):
    async def get(self, expert_id: str) -> Expert: ...
    async def create(self, name: str, description: str, owner: str = "local") -> Expert: ...
    async def save(self, expert: Expert, *, expected_version: int | None = None) -> Expert:
        """Bump the version and write; with ``expected_version``, refuse (``Conflict``) if another save came first."""
        ...

    async def list(self) -> list[Expert]: ...
    async def delete(self, expert_id: str) -> None: ...
    def close(self) -> None: ...


def new_expert(name: str, description: str, owner: str) -> Expert:
    """A valid new expert, or ``InvalidInput`` saying what a name may be (shared by every store)."""
    name = " ".join(name.split())
    if not NAME.match(name):
        raise InvalidInput("an expert name is 2-80 letters, digits, spaces or . , ' ( ) & -")
    return Expert(name=name, description=description, owner=owner, version=1)


def not_found(expert_id: str) -> NotFound:
    return NotFound(f"no expert {expert_id!r}; expert_list shows the ids that exist")


def name_taken(name: str) -> Conflict:
    """Only ever about the caller's own experts: names are per owner, so another's are never revealed."""
    return Conflict(f"you already have an expert named {name!r}; pick another name or use that expert")


def name_key(owner: str, name: str) -> str:
    """The unique key of an expert's name: names are unique per owner, never across principals.

    A name unique across the server told one principal the names of another's experts.
    """
    return f"{owner}\x1f{name}"


def stale(expert_id: str, found: object) -> Conflict:
    return Conflict(f"expert {expert_id!r} changed meanwhile (version {found}); read it again and retry")


class SqliteExpertStore:
    """Experts as JSON records in their own SQLite file (WAL), one transaction per change."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS experts (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, record TEXT NOT NULL)"
        )
        # The name column holds name_key(owner, name); rows from before names were per owner hold the bare name.
        self._db.execute(
            "UPDATE experts SET name = COALESCE(json_extract(record, '$.owner'), 'local') || char(31) || name "
            "WHERE instr(name, char(31)) = 0"
        )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _get(self, expert_id: str) -> Expert:
        with self._lock:
            row = self._db.execute("SELECT record FROM experts WHERE id = ?", (expert_id,)).fetchone()
        if row is None:
            raise not_found(expert_id)
        return Expert.model_validate_json(row[0])

    def _create(self, expert: Expert) -> Expert:
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO experts (id, name, record) VALUES (?, ?, ?)",
                    (expert.id, name_key(expert.owner, expert.name), expert.model_dump_json()),
                )
            except sqlite3.IntegrityError:
                raise name_taken(expert.name) from None
        return expert

    def _save(self, expert: Expert, expected_version: int | None) -> Expert:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT record FROM experts WHERE id = ?", (expert.id,)).fetchone()
                if row is None:
                    raise not_found(expert.id)
                current = Expert.model_validate_json(row[0]).version
                if expected_version is not None and current != expected_version:
                    raise stale(expert.id, current)
                saved = expert.model_copy(update={"updated_at": utcnow(), "version": current + 1})
                self._db.execute("UPDATE experts SET record = ? WHERE id = ?", (saved.model_dump_json(), expert.id))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return saved

    def _list(self) -> list[Expert]:
        with self._lock:
            rows = self._db.execute("SELECT record FROM experts").fetchall()
        return sorted((Expert.model_validate_json(r[0]) for r in rows), key=lambda e: e.name)

    def _delete(self, expert_id: str) -> None:
        with self._lock:
            if self._db.execute("DELETE FROM experts WHERE id = ?", (expert_id,)).rowcount == 0:
                raise not_found(expert_id)

    async def get(self, expert_id: str) -> Expert:
        return await anyio.to_thread.run_sync(self._get, expert_id)

    async def create(self, name: str, description: str, owner: str = "local") -> Expert:
        return await anyio.to_thread.run_sync(self._create, new_expert(name, description, owner))

    async def save(self, expert: Expert, *, expected_version: int | None = None) -> Expert:
        return await anyio.to_thread.run_sync(self._save, expert, expected_version)

    async def list(self) -> list[Expert]:
        return await anyio.to_thread.run_sync(self._list)

    async def delete(self, expert_id: str) -> None:
        await anyio.to_thread.run_sync(self._delete, expert_id)
