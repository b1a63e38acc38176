"""Evidence from outside the corpus: sources the engine asks beside it (e.g. an upstream MCP tool).

A source answers a sub-question with passages like the corpus's; each ask is recorded in the
campaign's steps (what was asked, how many items came back, how long it took, what it cost,
or why it failed), and a failing source never fails the research: the corpus answers alone.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Protocol

from deepr_mcp.errors import DeeprError
from deepr_mcp.research.models import ResearchState, StepRecord
from deepr_mcp.research.passage import Passage

__all__ = ["EvidenceSource", "gather_from"]

logger = logging.getLogger(__name__)


class EvidenceSource(Protocol):
    provider: str
    """Who answers, as shown in the steps (``upstream:docs``)."""
    model: str
    """What is asked, as shown in the steps (the upstream tool's name)."""
    limit: int
    """At most this many passages per sub-question."""
    cost_per_call: float
    """Dollars one ask costs (0 unless configured)."""

    async def search(self, query: str) -> Sequence[Passage]: ...


async def gather_from(sources: Sequence[EvidenceSource], query: str, state: ResearchState, step: str) -> list[Passage]:
    """Ask every source for ``query``, record each ask in ``state.step_records``, return their passages."""
    found: list[Passage] = []
    for source in sources:
        started = time.perf_counter()
        error: str | None = None
        hits: list[Passage] = []
        try:
            hits = list(await source.search(query))[: source.limit]
        except DeeprError as exc:
            error = exc.message
            logger.warning("evidence source %s/%s failed: %s", source.provider, source.model, error)
        state.step_records.append(
            StepRecord(
                step=step,
                provider=source.provider,
                model=source.model,
                cost=source.cost_per_call,
                duration_s=round(time.perf_counter() - started, 4),
                items=len(hits),
                error=error,
            )
        )
        found += hits
    return found
