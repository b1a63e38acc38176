"""The research state: a plain, serialisable record the engine advances one step at a time.

Everything a resumed run needs lives here, so a job runner can persist it after every step
and continue from the last finished one after a stop, a crash or a budget question.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from deepr_mcp.research.reading.analysis import QuestionAnalysis


class Phase(StrEnum):
    QUEUED = "queued"
    PLANNING = "planning"
    EXECUTING = "executing"
    SYNTHESIZING = "synthesizing"
    COMPLETE = "complete"


class Citation(BaseModel):
    """A numbered reference in the report, resolving to one stored passage."""

    number: int
    passage_id: str
    source: str
    location: str = ""
    quote: str = ""


class Finding(BaseModel):
    claim: str
    passage_ids: list[str]
    """Every retrieved passage that contains or supports the claim, and no other."""
    confidence: float = Field(ge=0, le=1)
    code: str | None = None
    """A code example quoted from a cited passage, shown as a fenced block under the claim."""


class SubQuestion(BaseModel):
    id: str
    text: str
    status: Literal["pending", "answered", "weak", "unanswered"] = "pending"
    findings: list[Finding] = Field(default_factory=list)
    evidence: float = 0.0
    """Best retrieval support seen for this sub-question (0..1); low means a gap."""
    nearest: str = ""
    """When nothing found answers it: where the nearest passages were (a heading), for the gaps section."""
    missing: list[str] = Field(default_factory=list)
    """What the cited evidence says nothing about, in the sub-question's words ("noise level")."""
    covered_by: list[str] = Field(default_factory=list)
    """Passages cited under other sub-questions that answer this one too (its answer is above)."""
    unmentioned: list[str] = Field(default_factory=list)
    """Names it asks about that no passage writes ("FastAPI"): a gap whatever else answers it."""
    no_figure: bool = False
    """It asks for a figure ("how many", "until when") and no finding cited for it gives one: a gap."""
    near: list[Finding] = Field(default_factory=list)
    """What the provider drafted for a part whose cited passages share its words but not its meaning: no answer
    (it is a gap, never in the Answer, never a known fact for the other parts), shown as passages near it, so a
    reader can judge what the small embedder could not."""


class Belief(BaseModel):
    claim: str
    confidence: float = Field(ge=0, le=1)
    citations: list[int]
    sub_question: str


class Gap(BaseModel):
    sub_question: str
    reason: str
    missing: list[str] = Field(default_factory=list)
    """What the documents say nothing about, in the sub-question's words."""


class StepRecord(BaseModel):
    step: str
    provider: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    duration_s: float | None = None
    """How long an evidence source took to answer (set for source asks, not model calls)."""
    items: int | None = None
    """How many passages an evidence source returned."""
    error: str | None = None
    """Why an evidence source gave nothing (the research went on without it)."""


def tidy_queries(queries: Sequence[str]) -> list[str]:
    """The agent's phrasings as searched: whitespace collapsed, empty ones dropped."""
    return [" ".join(q.split()) for q in queries if q.strip()]


class ResearchState(BaseModel):
    question: str
    queries: list[str] = Field(default_factory=list)
    """Other phrasings from the calling agent (the terms the documentation likely uses), searched too."""
    analysis: QuestionAnalysis | None = None
    phase: Phase = Phase.QUEUED
    sub_questions: list[SubQuestion] = Field(default_factory=list)
    passages: dict[str, Citation] = Field(default_factory=dict)
    """Every passage cited so far, keyed by passage id; numbers are assigned in first-cited order."""
    beliefs: list[Belief] = Field(default_factory=list)
    gaps: list[Gap] = Field(default_factory=list)
    answer: str = ""
    """The direct answer (2-5 cited sentences) that opens the report."""
    report: str | None = None
    steps_done: list[str] = Field(default_factory=list)
    step_records: list[StepRecord] = Field(default_factory=list)
    max_sub_questions: int = 5
    passages_per_question: int = 10

    @property
    def cost(self) -> float:
        return round(sum(r.cost for r in self.step_records), 6)

    def cite(self, passage_id: str, source: str, location: str, quote: str) -> int:
        """The citation number for a passage, assigning the next one on first use."""
        if passage_id not in self.passages:
            self.passages[passage_id] = Citation(
                number=len(self.passages) + 1, passage_id=passage_id, source=source, location=location, quote=quote
            )
        return self.passages[passage_id].number


class EngineEvent(BaseModel):
    """What a job runner persists and announces after each step."""

    phase: Phase
    progress: float = Field(ge=0, le=1)
    active_task: str | None = None
    cost: float = 0.0
    step: str | None = None
