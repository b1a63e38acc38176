"""Durable campaign records: a ``Protocol`` seam and the embedded SQLite (WAL) default.

Each save is one transaction that bumps the record's version, so a crash leaves either the
old record or the new one, never half of each; schema changes are numbered migrations.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import anyio

from deepr_mcp.errors import Conflict, DeeprError, NotFound, QuotaExceeded
from deepr_mcp.jobs.models import TERMINAL_PHASES, Campaign, CampaignPhase, utcnow
from deepr_mcp.jobs.records import UnreadableRecord, decode, encode, gone, quarantined


class StoreUnavailable(DeeprError):
    """A shared store cannot be reached (down, restarting, wrong password); the call wrote nothing."""

    code = "store_unavailable"


class OpenLimitReached(QuotaExceeded):
    """``create(max_open=...)`` refused: the owner already has ``open_now`` unfinished campaigns."""

    def __init__(self, owner: str, open_now: int) -> None:
        super().__init__(f"principal {owner!r} has {open_now} unfinished campaigns")
        self.owner, self.open_now = owner, open_now


OPEN_PHASES = tuple(p for p in CampaignPhase if p not in TERMINAL_PHASES)


MIGRATIONS: Sequence[str] = (
    # 1: campaigns as JSON records with the columns we filter and sort on.
    """
    CREATE TABLE campaigns (
        id TEXT PRIMARY KEY,
        phase TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        version INTEGER NOT NULL,
        expert_id TEXT,
        record TEXT NOT NULL
    );
    CREATE INDEX campaigns_phase ON campaigns(phase);
    CREATE INDEX campaigns_created ON campaigns(created_at, id);
    """,
    # 2: records that no longer load, set aside with the reason (never served, never deleted).
    """
    CREATE TABLE quarantined (
        id TEXT PRIMARY KEY,
        record TEXT NOT NULL,
        reason TEXT NOT NULL,
        at TEXT NOT NULL
    );
    """,
)


class CampaignStore(Protocol):
    async def get(self, campaign_id: str) -> Campaign: ...
    async def create(self, campaign: Campaign, *, max_open: int | None = None) -> Campaign:
        """Store a new record; with ``max_open``, refuse it (``OpenLimitReached``) when its owner already
        has that many unfinished campaigns. The count and the insert are one atomic step, so two
        concurrent starts of one principal (on one replica or two) cannot both pass the check."""
        ...

    async def save(self, campaign: Campaign, *, expected_version: int | None = None) -> Campaign: ...
    async def list(
        self,
        *,
        phases: Sequence[CampaignPhase] | None = None,
        limit: int = 20,
        offset: int = 0,
        visible_to: str | None = None,
        owner: str | None = None,
    ) -> tuple[list[Campaign], int]:
        """Newest first; with ``visible_to``, only that principal's campaigns and those shared with it;
        with ``owner``, only that principal's own."""
        ...

    async def unfinished(self) -> list[Campaign]: ...
    async def delete(self, campaign_id: str) -> None: ...
    async def ids(self) -> set[str]: ...
    def close(self) -> None: ...


class SqliteCampaignStore:
    """One connection guarded by a lock; every call runs in a worker thread."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._migrate()

    def _migrate(self) -> None:
        with self._lock:
            current = self._db.execute("PRAGMA user_version").fetchone()[0]
            for number, sql in enumerate(MIGRATIONS[current:], start=current + 1):
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for statement in filter(str.strip, sql.split(";")):
                        self._db.execute(statement)
                    self._db.execute(f"PRAGMA user_version={number}")
                    self._db.execute("COMMIT")
                except Exception:
                    self._db.execute("ROLLBACK")
                    raise

    @property
    def schema_version(self) -> int:
        with self._lock:
            return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    async def _run(self, fn, *args):  # type: ignore[no-untyped-def]
        return await anyio.to_thread.run_sync(fn, *args)

    def _get(self, campaign_id: str) -> Campaign:
        with self._lock:
            row = self._db.execute("SELECT record FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()
            aside = None
            if row is None:
                aside = self._db.execute("SELECT reason FROM quarantined WHERE id = ?", (campaign_id,)).fetchone()
        if aside is not None:
            raise gone(campaign_id, aside[0])
        if row is None:
            raise NotFound(f"no campaign {campaign_id!r}; campaign_list shows the ids that exist")
        return self._load(campaign_id, row[0])

    def _load(self, campaign_id: str, record: str) -> Campaign:
        """The record, or (quarantined, logged) ``NotFound`` saying why it is no longer served."""
        try:
            return decode(campaign_id, record)
        except UnreadableRecord as bad:
            self._quarantine(bad, record)
            raise gone(campaign_id, bad.reason) from None

    def _quarantine(self, bad: UnreadableRecord, record: str) -> None:
        """Move the record aside in one transaction, unless a writer replaced it meanwhile."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                moved = self._db.execute(
                    "DELETE FROM campaigns WHERE id = ? AND record = ?", (bad.campaign_id, record)
                ).rowcount
                if moved:
                    self._db.execute(
                        "INSERT OR REPLACE INTO quarantined (id, record, reason, at) VALUES (?, ?, ?, ?)",
                        (bad.campaign_id, record, bad.reason, utcnow().isoformat()),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        if moved:
            quarantined(bad.campaign_id, bad.reason, f"the quarantined table of {self._path}")

    async def get(self, campaign_id: str) -> Campaign:
        return await self._run(self._get, campaign_id)

    def _write(
        self, campaign: Campaign, expected_version: int | None, create: bool, max_open: int | None = None
    ) -> Campaign:
        updated = campaign.model_copy(update={"version": campaign.version + 1, "updated_at": utcnow()})
        record = encode(updated)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT version FROM campaigns WHERE id = ?", (campaign.id,)).fetchone()
                if create and row is not None:
                    raise Conflict(f"campaign {campaign.id!r} already exists")
                if not create and row is None:
                    raise NotFound(f"no campaign {campaign.id!r}")
                if expected_version is not None and row is not None and row[0] != expected_version:
                    raise Conflict(f"campaign {campaign.id!r} changed meanwhile (version {row[0]})")
                if create and max_open is not None:
                    open_now = self._count_open(updated.owner)
                    if open_now >= max_open:
                        raise OpenLimitReached(updated.owner, open_now)
                self._db.execute(
                    "INSERT OR REPLACE INTO campaigns (id, phase, created_at, updated_at, version, expert_id, record)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        updated.id,
                        updated.phase.value,
                        updated.created_at.isoformat(),
                        updated.updated_at.isoformat(),
                        updated.version,
                        updated.expert_id,
                        record,
                    ),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return updated

    def _count_open(self, owner: str) -> int:
        """Unfinished campaigns of ``owner`` (call inside the write's transaction)."""
        marks = ",".join("?" * len(OPEN_PHASES))
        row = self._db.execute(
            f"SELECT COUNT(*) FROM campaigns WHERE phase IN ({marks}) "
            "AND COALESCE(json_extract(record, '$.owner'), 'local') = ?",
            [*(p.value for p in OPEN_PHASES), owner],
        ).fetchone()
        return int(row[0])

    async def create(self, campaign: Campaign, *, max_open: int | None = None) -> Campaign:
        return await self._run(self._write, campaign, None, True, max_open)

    async def save(self, campaign: Campaign, *, expected_version: int | None = None) -> Campaign:
        return await self._run(self._write, campaign, expected_version, False)

    def _list(
        self,
        phases: Sequence[CampaignPhase] | None,
        limit: int,
        offset: int,
        visible_to: str | None,
        owner: str | None = None,
    ) -> tuple[list[Campaign], int]:
        clauses, params = [], []
        if phases:
            clauses.append(f"phase IN ({','.join('?' * len(phases))})")
            params = [p.value for p in phases]
        if visible_to is not None:
            # Records from before principals existed have no owner: they are the local principal's.
            clauses.append(
                "(COALESCE(json_extract(record, '$.owner'), 'local') = ? OR EXISTS (SELECT 1 FROM "
                "json_each(record, '$.shared_with') WHERE json_each.value IN (?, '*')))"
            )
            params += [visible_to, visible_to]
        if owner is not None:
            clauses.append("COALESCE(json_extract(record, '$.owner'), 'local') = ?")
            params.append(owner)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._lock:
            total = self._db.execute(f"SELECT COUNT(*) FROM campaigns{where}", params).fetchone()[0]
            rows = self._db.execute(
                f"SELECT id, record FROM campaigns{where} ORDER BY created_at DESC, id LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
        campaigns = []
        for campaign_id, record in rows:
            try:
                campaigns.append(self._load(campaign_id, record))
            except NotFound:  # quarantined just now: one unreadable record never hides the others
                total -= 1
        return campaigns, int(total)

    async def list(
        self,
        *,
        phases: Sequence[CampaignPhase] | None = None,
        limit: int = 20,
        offset: int = 0,
        visible_to: str | None = None,
        owner: str | None = None,
    ) -> tuple[list[Campaign], int]:
        return await self._run(self._list, phases, limit, offset, visible_to, owner)

    async def unfinished(self) -> list[Campaign]:
        campaigns, _ = await self.list(phases=OPEN_PHASES, limit=1_000_000)
        return sorted(campaigns, key=lambda c: (c.created_at, c.id))

    def _delete(self, campaign_id: str) -> None:
        with self._lock:
            cur = self._db.execute("DELETE FROM campaigns WHERE id = ?", (campaign_id,))
        if cur.rowcount == 0:
            raise NotFound(f"no campaign {campaign_id!r}")

    async def delete(self, campaign_id: str) -> None:
        await self._run(self._delete, campaign_id)

    def _ids(self) -> set[str]:
        """Every campaign id, quarantined ones too (their sandboxes are kept, not orphans)."""
        with self._lock:
            return {r[0] for r in self._db.execute("SELECT id FROM campaigns UNION SELECT id FROM quarantined")}

    async def ids(self) -> set[str]:
        return await self._run(self._ids)

    def close(self) -> None:
        with self._lock:
            self._db.close()
