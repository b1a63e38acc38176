"""Every provider's draft checked the same way: what the model is shown, and what it may keep.

An LLM reads whatever passages it is given and drafts claims from them, so the relevance floor
the local provider applies sentence by sentence is applied here twice for every provider:
before the prompt (a passage none of whose sentences clears the floor is not shown) and after
it (a drafted claim must be supported by a passage that was shown, and clear the floor itself).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from deepr_mcp.research.models import Finding
from deepr_mcp.research.passage import Passage
from deepr_mcp.research.reading.terms import coverage
from deepr_mcp.research.synthesis import citations
from deepr_mcp.research.synthesis.claims import (
    SUPPORT_THRESHOLD,
    adds_nothing,
    code_in,
    normalise,
    same_claim,
    support,
    units,
)
from deepr_mcp.research.synthesis.relevance import off_task, relevant


@dataclass(frozen=True, slots=True)
class Floor:
    """The relevance floor for one sub-question (see :func:`relevance.relevant`)."""

    sub_question: str
    wanted: set[str]
    question: str = ""
    action: str = ""
    meant: frozenset[str] = frozenset()
    """Passages found by meaning (``Evidence.meant``): on the topic whatever words they use."""

    def clears(self, text: str, heading: str, code: str | None = None, *, by_meaning: bool = False) -> bool:
        return relevant(
            self.sub_question,
            text,
            heading,
            self.wanted,
            code,
            question=self.question,
            action=self.action,
            by_meaning=by_meaning,
        )

    def admits(self, claim: str, passage: Passage, code: str | None = None) -> bool:
        """Whether a claim drawn from ``passage`` clears the floor (by meaning, if the passage was found so)."""
        return self.clears(claim, passage.location, code, by_meaning=passage.id in self.meant)

    def shows(self, passage: Passage) -> bool:
        """Whether any sentence of the passage (with the code it introduces) clears the floor."""
        found = units(passage.text)
        recipes = off_task(self.action, [u.text for u in found])
        return any(
            self.admits(u.text, passage, u.code) for i, u in enumerate(found) if (u.text or u.code) and i not in recipes
        )


@dataclass
class Checked:
    findings: list[Finding] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    """Claims no shown passage supports: dropped."""
    off_question: list[str] = field(default_factory=list)
    """Claims a passage supports that do not answer the sub-question (another task, year or kind): dropped."""


def verify_findings(
    parsed: list[tuple[str, list[int], str | None]],
    hits: Sequence[Passage],
    wanted: set[str],
    floor: Floor | None = None,
) -> Checked:
    """Each claim cited by exactly the shown passages that contain or support it; others dropped.

    The model's own citation numbers are not trusted: a claim is checked against every passage
    it was shown, so a right claim with a wrong number is re-attributed and an unsupported claim
    is dropped. With ``floor``, a supported claim must also answer the sub-question.
    """
    out = Checked()
    for claim, numbers, code in parsed:
        backing = [(support(claim, h.text), h) for h in hits]
        cited = supporting(claim, backing)
        if not cited:
            out.unsupported.append(claim)
            continue
        if code is not None:  # the passages that hold the code say it; code none holds is not quoted
            cited = [h for h in cited if code_in(code, h.text)] or cited
            code = code if any(code_in(code, h.text) for h in cited) else None
        named = [h for i, h in enumerate(hits, start=1) if i in numbers and h in cited]
        cited = named or cited  # among passages that say it alike, the one the provider drew it from
        if floor is not None and not any(floor.admits(claim, h, code) for h in cited):
            out.off_question.append(claim)
            continue
        if any(adds_nothing(claim, f.claim) for f in out.findings):
            continue
        grounding = max(s for s, _ in backing)
        focus = max(coverage(wanted, f"{h.location} {h.text}") for h in cited)
        confidence = 0.5 * grounding + 0.3 * focus + 0.2 * min(1.0, len(cited) / 3)
        out.findings.append(
            Finding(claim=claim, passage_ids=[h.id for h in cited], confidence=round(confidence, 3), code=code)
        )
    return out


def supporting(claim: str, backing: list[tuple[float, Passage]]) -> list[Passage]:
    """The passages a claim cites: those that quote it, else those that hold the most of its terms.

    Every passage holding 80% of a short claim's few terms supports it in words ("Rename the files
    with the batch tool." against five passages naming that tool), and citing them all tells the
    reader nothing about where it is said; the passage it was drawn from says it whole.
    """
    said = normalise(claim)
    quoting = [h for s, h in backing if s >= SUPPORT_THRESHOLD and said in normalise(h.text)]
    if quoting:
        return quoting
    best = max((s for s, _ in backing), default=0)
    return [h for s, h in backing if s >= SUPPORT_THRESHOLD and s >= best]


def verify_answer(answer: str, findings: list[str]) -> str:
    """Keep the answer's sentences that restate cited findings; an answer with none is rebuilt."""
    kept = []
    for sentence in citations.split_sentences(answer):
        numbers = citations.citations_in(sentence)
        claim = citations.CITE.sub("", sentence).strip()
        backing = " ".join(f for f in findings if set(citations.citations_in(f)) & set(numbers))
        if numbers and (
            same_claim(claim, citations.CITE.sub("", backing)) or support(claim, backing) >= SUPPORT_THRESHOLD
        ):
            kept.append(sentence)
    if kept:
        return " ".join(kept)
    return " ".join(findings[:2])
