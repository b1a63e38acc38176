"""A campaign is a record, not a live object: everything about it can be saved and re-read.

The research engine's own state rides inside it, so a restarted server resumes a campaign
from its last finished step.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from deepr_mcp.jobs.uris import campaign_uris
from deepr_mcp.research.models import ResearchState


class CampaignPhase(StrEnum):
    QUEUED = "queued"
    PLANNING = "planning"
    EXECUTING = "executing"
    SYNTHESIZING = "synthesizing"
    COMPLETE = "complete"
    AWAITING_APPROVAL = "awaiting_approval"
    PAUSED = "paused"
    FAILED = "failed"
    CANCELLED = "cancelled"


TERMINAL_PHASES = frozenset({CampaignPhase.COMPLETE, CampaignPhase.FAILED, CampaignPhase.CANCELLED})
RUNNING_PHASES = frozenset({CampaignPhase.PLANNING, CampaignPhase.EXECUTING, CampaignPhase.SYNTHESIZING})

KEPT_DECISIONS = 50
"""Budget decisions a campaign keeps in full; older ones are only counted (``older_decisions``)."""

DecisionName = Literal["approve_override", "optimize_for_cost", "abort"]


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_campaign_id() -> str:
    """Short, URL- and path-safe, unguessable enough to be a capability in a shared server."""
    return "c" + secrets.token_hex(6)


class BudgetDecision(BaseModel):
    decision: DecisionName
    new_budget: float | None = None
    channel: str
    answered_by: str
    principal: str | None = None
    """The principal that made the decision (``None`` for the timeout default and older records)."""
    at: datetime = Field(default_factory=utcnow)


class BudgetQuestion(BaseModel):
    """The one open budget question of a campaign, if any."""

    id: str
    estimated_cost: float
    spent: float
    budget: float
    step: str
    asked_at: datetime = Field(default_factory=utcnow)
    channels_tried: list[str] = Field(default_factory=list)
    answer: BudgetDecision | None = None
    """An answer given on a replica that does not run the campaign, for the one that does to apply."""


class Campaign(BaseModel):
    id: str = Field(default_factory=new_campaign_id)
    question: str
    phase: CampaignPhase = CampaignPhase.QUEUED
    progress: float = 0.0
    active_tasks: list[str] = Field(default_factory=list)
    budget: float
    provider: str = "local"
    model: str = ""
    cost_mode: Literal["normal", "cheap"] = "normal"
    """``cheap`` after an optimize_for_cost decision: the cheaper configured model, fewer passages."""
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    version: int = 0
    """Bumped by every saved change; ``campaign_wait(since=…)`` compares against it."""
    error: str | None = None
    resumes_without_progress: int = 0
    """Restarts that resumed this campaign since its last finished step; too many means a crash loop."""
    paused_from: CampaignPhase | None = None
    expert_id: str | None = None
    owner_connection: str | None = None
    owner: str = "local"
    """The principal that started it; records from before principals existed belong to ``local``."""
    shared_with: list[str] = Field(default_factory=list)
    """Principals it is shared with (``campaign_share``); ``"*"`` is everyone."""
    task_ttl_ms: int | None = None
    is_task: bool = False
    """Started by a task-augmented tools/call (2025-11-25): also served through tasks/*."""
    decisions: list[BudgetDecision] = Field(default_factory=list)
    """The newest ``KEPT_DECISIONS`` budget decisions, oldest first (see ``record_decision``)."""
    older_decisions: int = 0
    """Decisions dropped from ``decisions`` to keep the record bounded; still counted."""
    open_question: BudgetQuestion | None = None
    requested: Literal["cancel", "pause"] | None = None
    """A cancel or pause asked on a replica that does not run the campaign, for the one that does (or
    the one that takes it over) to apply at its next step boundary; cleared by ``resume``."""
    research: ResearchState

    @property
    def cost(self) -> float:
        return self.research.cost

    @property
    def terminal(self) -> bool:
        return self.phase in TERMINAL_PHASES

    @property
    def decision_count(self) -> int:
        return self.older_decisions + len(self.decisions)

    def record_decision(self, decision: BudgetDecision) -> None:
        """Append a decision, keeping the newest ``KEPT_DECISIONS`` and counting the ones let go.

        A client answering budget questions in a loop must not grow the record without bound.
        """
        self.decisions.append(decision)
        extra = len(self.decisions) - KEPT_DECISIONS
        if extra > 0:
            del self.decisions[:extra]
            self.older_decisions += extra

    def uris(self) -> dict[str, str]:
        return campaign_uris(self.id)
