"""How a report's budget is shared among the parts of its question: passages read and findings listed.

A question of one part reads and says more about that part than each part of a four-part question
does; the bounds keep a long plan from listing a finding per passage and a short one from starving.
"""

from __future__ import annotations

from deepr_mcp.research.models import ResearchState

__all__ = [
    "FINDINGS_PER_PART",
    "FINDINGS_PER_REPORT",
    "MAX_PASSAGES_PER_PART",
    "findings_per_part",
    "passages_per_part",
]

MAX_PASSAGES_PER_PART = 30
"""A report's evidence budget (passages per sub-question x the sub-questions allowed) is spread over
the parts the question has: a question of one part reads more passages for it, up to this many."""


FINDINGS_PER_REPORT = 15
"""The findings a report may list, spread over its parts (``FINDINGS_PER_PART`` bounds each share)."""
FINDINGS_PER_PART = (5, 12)
"""The fewest and most findings one part may list, whatever the provider drafts: a model shown 30
passages would otherwise list a claim from each, and a reader wants the few that answer."""


def findings_per_part(state: ResearchState) -> int:
    """The cap on one part's findings: asked of the provider (``FindingsRequest.max_findings``) and kept."""
    least, most = FINDINGS_PER_PART
    return max(least, min(most, FINDINGS_PER_REPORT // max(1, len(state.sub_questions))))


def passages_per_part(state: ResearchState) -> int:
    """How many passages each planned part retrieves: the report's budget over its parts."""
    parts = max(1, len(state.sub_questions))
    share = state.passages_per_question * max(1, state.max_sub_questions // parts)
    return max(state.passages_per_question, min(MAX_PASSAGES_PER_PART, share))
