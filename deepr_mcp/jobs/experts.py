"""Experts: named, persistent knowledge bases fed by campaigns.

An expert accumulates the beliefs (with confidence and sources) and the gaps of every
campaign run for it; a later campaign that answers a gap closes it. ``expert_query`` answers
from the expert's beliefs only, with their citations, and says when the question is a gap.
"""

from __future__ import annotations

import re
import secrets
import sqlite3
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
from pydantic import BaseModel, Field

from deepr_mcp.errors import Conflict, InvalidInput, NotFound
from deepr_mcp.jobs.models import Campaign, utcnow
from deepr_mcp.research.terms import coverage, terms

_NAME = re.compile(r"^[\w .,'()&-]{2,80}$", re.UNICODE)


class ExpertSource(BaseModel):
    passage_id: str
    source: str
    location: str = ""


class ExpertBelief(BaseModel):
    claim: str
    confidence: float = Field(ge=0, le=1)
    sources: list[ExpertSource]
    campaign_id: str


class ExpertGap(BaseModel):
    question: str
    reason: str
    campaign_id: str


class Expert(BaseModel):
    id: str = Field(default_factory=lambda: "e" + secrets.token_hex(5))
    name: str
    description: str = ""
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    campaign_ids: list[str] = Field(default_factory=list)
    beliefs: list[ExpertBelief] = Field(default_factory=list)
    gaps: list[ExpertGap] = Field(default_factory=list)

    def uris(self) -> dict[str, str]:
        return {kind: f"deepr://experts/{self.id}/{kind}" for kind in ("profile", "beliefs", "gaps")}

    def profile(self) -> dict[str, Any]:
        top = sorted(self.beliefs, key=lambda b: -b.confidence)[:5]
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "campaigns": self.campaign_ids,
            "belief_count": len(self.beliefs),
            "gap_count": len(self.gaps),
            "strongest_beliefs": [b.claim for b in top],
            "resources": self.uris(),
        }


class ExpertStore:
    """Experts as JSON records in their own SQLite file (WAL), one transaction per change."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS experts (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, record TEXT NOT NULL)"
        )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _get(self, expert_id: str) -> Expert:
        with self._lock:
            row = self._db.execute("SELECT record FROM experts WHERE id = ?", (expert_id,)).fetchone()
        if row is None:
            raise NotFound(f"no expert {expert_id!r}; expert_list shows the ids that exist")
        return Expert.model_validate_json(row[0])

    def _put(self, expert: Expert, create: bool) -> Expert:
        expert = expert.model_copy(update={"updated_at": utcnow()})
        with self._lock:
            try:
                if create:
                    self._db.execute(
                        "INSERT INTO experts (id, name, record) VALUES (?, ?, ?)",
                        (expert.id, expert.name, expert.model_dump_json()),
                    )
                else:
                    self._db.execute(
                        "UPDATE experts SET record = ? WHERE id = ?", (expert.model_dump_json(), expert.id)
                    )
            except sqlite3.IntegrityError:
                raise Conflict(f"an expert named {expert.name!r} already exists") from None
        return expert

    def _list(self) -> list[Expert]:
        with self._lock:
            rows = self._db.execute("SELECT record FROM experts ORDER BY name").fetchall()
        return [Expert.model_validate_json(r[0]) for r in rows]

    def _delete(self, expert_id: str) -> None:
        with self._lock:
            if self._db.execute("DELETE FROM experts WHERE id = ?", (expert_id,)).rowcount == 0:
                raise NotFound(f"no expert {expert_id!r}")

    async def get(self, expert_id: str) -> Expert:
        return await anyio.to_thread.run_sync(self._get, expert_id)

    async def create(self, name: str, description: str) -> Expert:
        name = " ".join(name.split())
        if not _NAME.match(name):
            raise InvalidInput("an expert name is 2-80 letters, digits, spaces or . , ' ( ) & -")
        return await anyio.to_thread.run_sync(self._put, Expert(name=name, description=description), True)

    async def save(self, expert: Expert) -> Expert:
        return await anyio.to_thread.run_sync(self._put, expert, False)

    async def list(self) -> list[Expert]:
        return await anyio.to_thread.run_sync(self._list)

    async def delete(self, expert_id: str) -> None:
        await anyio.to_thread.run_sync(self._delete, expert_id)


def absorb(expert: Expert, campaign: Campaign) -> Expert:
    """Merge a finished campaign's beliefs and gaps; a gap a belief now answers is closed."""
    research = campaign.research
    known = {b.claim for b in expert.beliefs}
    for sq in research.sub_questions:
        for finding in sq.findings:
            if finding.claim in known:
                continue
            known.add(finding.claim)
            sources = [
                ExpertSource(
                    passage_id=pid, source=research.passages[pid].source, location=research.passages[pid].location
                )
                for pid in finding.passage_ids
                if pid in research.passages
            ]
            expert.beliefs.append(
                ExpertBelief(
                    claim=finding.claim, confidence=finding.confidence, sources=sources, campaign_id=campaign.id
                )
            )
    new_gaps = [ExpertGap(question=g.sub_question, reason=g.reason, campaign_id=campaign.id) for g in research.gaps]
    by_question = {g.question: g for g in expert.gaps}
    by_question.update({g.question: g for g in new_gaps})
    expert.gaps = [g for g in by_question.values() if not _answered(g.question, expert.beliefs)]
    if campaign.id not in expert.campaign_ids:
        expert.campaign_ids.append(campaign.id)
    return expert


def _answered(question: str, beliefs: list[ExpertBelief]) -> bool:
    wanted = terms(question)
    return any(coverage(wanted, b.claim) >= 0.8 and b.confidence >= 0.6 for b in beliefs)


def answer(expert: Expert, question: str, limit: int = 5) -> dict[str, Any]:
    """The beliefs that best cover the question, numbered with their sources; a gap if none do."""
    wanted = terms(question)
    if not wanted:
        raise InvalidInput("the question has no content words to match against the expert's beliefs")
    scored = sorted(
        ((coverage(wanted, b.claim) * (0.5 + 0.5 * b.confidence), b) for b in expert.beliefs),
        key=lambda pair: -pair[0],
    )
    relevant = [(score, b) for score, b in scored if score >= 0.2][:limit]
    sources: list[dict[str, str]] = []
    lines = []
    for _, belief in relevant:
        refs = []
        for src in belief.sources:
            entry = src.model_dump()
            if entry not in sources:
                sources.append(entry)
            refs.append(sources.index(entry) + 1)
        lines.append(f"{belief.claim} " + "".join(f"[{n}]" for n in refs) + f" (confidence {belief.confidence:.2f})")
    return {
        "expert_id": expert.id,
        "question": question,
        "answer": "\n".join(f"- {line}" for line in lines) if lines else None,
        "is_gap": not lines,
        "suggestion": None
        if lines
        else {"tool": "expert_fill_gaps", "arguments": {"expert_id": expert.id, "questions": [question]}},
        "sources": [{"number": i + 1, **s} for i, s in enumerate(sources)],
    }
