"""What experts know: merging a finished campaign in, and answering from beliefs alone.

An expert accumulates the beliefs (with confidence and sources) and the gaps of every
campaign run for it; a later campaign that answers a gap closes it. ``expert_query`` answers
from the expert's beliefs only, with their citations, and says when the question is a gap.
"""

from __future__ import annotations

from typing import Any

from deepr_mcp.errors import InvalidInput
from deepr_mcp.experts.models import Expert, ExpertBelief, ExpertGap, ExpertSource
from deepr_mcp.jobs.models import Campaign
from deepr_mcp.research.reading.terms import coverage, terms


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
