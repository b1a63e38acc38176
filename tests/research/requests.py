"""Typed requests for the local provider, as the engine builds them, for tests that call it directly."""

from __future__ import annotations

from deepr_mcp.research.providers.base import FindingsRequest, SourcePassage
from deepr_mcp.research.providers.local import findings_text
from deepr_mcp.research.reading.analysis import analyse


def findings_request(
    sub_question: str,
    passages: list[tuple[int, str, str]],
    *,
    question: str = "",
    key_terms: list[str] | tuple[str, ...] = (),
    related: list[str] | tuple[str, ...] = (),
    known: list[str] | tuple[str, ...] = (),
) -> FindingsRequest:
    """``passages`` are ``(number, location, text)``; the question defaults to the sub-question."""
    analysis = analyse(question or sub_question)
    return FindingsRequest(
        question=question or sub_question,
        analysis=analysis,
        sub_question=sub_question,
        passages=tuple(SourcePassage(n, f"p{n}", location, text) for n, location, text in passages),
        key_terms=tuple(key_terms),
        related=tuple(related),
        known=tuple(known),
        safety=analysis.safety,
    )


def local_findings(sub_question: str, passages: list[tuple[int, str, str]], **kw: object) -> str:
    """What the local provider answers to that request: ``- claim [n]`` lines or ``NO EVIDENCE``."""
    return findings_text(findings_request(sub_question, passages, **kw))  # type: ignore[arg-type]
