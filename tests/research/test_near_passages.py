"""A part judged off its topic keeps its drafts as passages near it (``SubQuestion.near``) only while it is a gap:
answered above by another part's findings, it lists nothing near it, so the report cites no passage it never shows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import new_state
from deepr_mcp.research.models import Finding, SubQuestion
from deepr_mcp.research.passage import Passage
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.synthesis import standing
from deepr_mcp.research.synthesis.coverage import TermCoverage
from deepr_mcp.research.synthesis.standing import PartStanding

QUESTION = "How hot does the kiln get, and what glaze cone does the kiln reach?"
ANSWER = "The kiln reaches glaze cone 6, about 1220 degrees, on its slow program."
ASIDE = "The lid hinge wears out after about 300 firings."


def stood_out(off: set[str]) -> Callable[..., bool]:
    """The meaning judge, as a double: the passages in ``off`` stand out for nothing, any others for the part."""

    def by_meaning(
        search: object,
        part: str,
        question: str,
        passage_ids: Sequence[str],
        context: str = "",
        *,
        several: bool = False,
    ) -> bool:
        return not set(passage_ids) <= off

    return by_meaning


def test_a_part_answered_above_lists_nothing_near_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "kiln.md").write_text(f"# Kiln\n\n## Firing\n\n{ANSWER}\n\n## Hinges\n\n{ASIDE}\n")
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "kiln.md")
    state = new_state(QUESTION)
    heat, cone = (
        SubQuestion(id="sq1", text="How hot does the kiln get?"),
        SubQuestion(id="sq2", text="What glaze cone does the kiln reach?"),
    )
    state.sub_questions = [heat, cone]
    state.cite("p-answer", "kiln.md", "Kiln > Firing", ANSWER)
    heat.findings = [Finding(claim=ANSWER, passage_ids=["p-answer"], confidence=0.9)]
    aside = Passage(id="p-aside", text=ASIDE, source="kiln.md", location="Kiln > Hinges", score=1.0)
    monkeypatch.setattr(standing, "by_meaning", stood_out({"p-aside"}))
    judge = PartStanding(TermCoverage(), corpus, search=None)
    drafted = [Finding(claim=ASIDE, passage_ids=["p-aside"], confidence=0.5)]

    verdict = judge.judge(state, cone, analyse(QUESTION), [aside], drafted, frozenset(), read_by_model=False)

    assert verdict.answered and cone.covered_by == ["p-answer"]  # the cone is stated under the first part
    assert not cone.findings and not cone.near  # the hinge line is neither its answer nor listed near it
    corpus.close()
