"""``bench.coverage_judge``: which part is the uncovered half, the AUC it prints, and the sets it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import coverage_judge
from bench.coverage_judge import Judgement, auc, judgements, row, uncovered_part
from bench.question_sets import NEVER_TRACED
from bench.research_quality import Question
from bench.retrieval_recall import gold_passages
from tests.research.test_coverage_meaning import DOC, QUESTION, embedded_corpus


def test_the_uncovered_half_is_the_part_named_by_the_description_not_by_the_gold() -> None:
    parts = ["How do I glaze a whole shelf of pots in one firing?", "Can I undo a glaze after it has fired?"]
    gold = ["glaze every pot on the shelf before firing", "one firing for the whole shelf"]
    # "glaze" is in the description and in both parts; the gold's words pull the first part away
    assert uncovered_part(parts, ["undoing a glaze once fired"], gold) == parts[1]


def test_a_question_of_one_part_or_with_no_uncovered_half_has_none() -> None:
    assert uncovered_part(["How hot does the kiln get?"], ["its price"], ["1300 degrees"]) is None
    assert uncovered_part(["How hot?", "How loud?"], [], ["1300 degrees"]) is None


def test_auc_is_the_chance_a_covered_part_outscores_an_uncovered_half() -> None:
    assert auc([3.0, 4.0], [1.0, 2.0]) == 1.0
    assert auc([1.0], [2.0]) == 0.0
    assert auc([2.0, 3.0], [2.0]) == 0.75  # a tie counts half
    assert auc([2.0], []) is None and auc([], [1.0]) is None


def test_a_row_counts_right_verdicts_per_label_and_ignores_unlabelled_judgements() -> None:
    made = [
        Judgement("q1", "part a", True, 4.0, "covered"),
        Judgement("q1", "part b", False, 1.0, "uncovered"),
        Judgement("q2", "part c", False, 2.5, "covered"),
        Judgement("q3", "part d", True, 9.0, ""),
        Judgement("q4", "part e", False, -1.0, "none"),
        Judgement("q5", "part f", True, 0.5, "none"),
    ]
    # the parts of none questions are counted apart: gaps called of them, and out of the first AUC; the second
    # weighs one-part questions' covered parts (4.0, 2.5) against their none parts (-1.0, 0.5)
    assert row("kilns", made) == "| kilns | 6 | 1 of 2 | 1 of 1 | 1.00 | 1 of 2 | 1.00 |"
    several = [Judgement("q1", "part a", True, 4.0, "covered", several=True), made[4]]
    assert row("kilns", several).endswith("| 1 of 1 | n/a |")  # no covered part of a one-part question


@pytest.mark.parametrize("refused", NEVER_TRACED)
def test_a_set_written_to_be_run_once_is_refused(refused: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        coverage_judge.main(["--set", refused])
    assert exited.value.code == 2
    assert f"invalid choice: '{refused}'" in capsys.readouterr().err


def test_each_part_the_engine_judges_is_recorded_with_its_margin_and_label(tmp_path: Path) -> None:
    """The bench records the judgements the engine itself makes (``PartStanding.meaning``): a refactor that moves
    the judge must move the recording with it, or the bench stops running (it did, from c8c604e to the twenty-fourth
    session)."""
    corpus = embedded_corpus(tmp_path, DOC)
    question = Question(
        "kiln-rename-undo",
        "two-part",
        QUESTION,
        ["renames many firing programs at once"],
        uncovered=["undoing the renaming later"],
    )
    gold_ids = set().union(*gold_passages(corpus, [question]).values())
    made = judgements(corpus, question, gold_ids)
    assert {j.label for j in made} == {"covered", "uncovered"}
    covered = next(j for j in made if j.label == "covered")
    uncovered = next(j for j in made if j.label == "uncovered")
    assert "undo" in uncovered.part and "rename" in covered.part
    # the margin the judge thresholds at 0 (``MeaningJudge.margins``): the renaming passage is past it for its part,
    # and further than the keypad's undo key is for the undo half (words, not meaning, leave that half a gap here;
    # by standing alone the two were level, 6.25 and 6.28 deviations)
    assert covered.verdict is True and covered.statistic > 0
    assert covered.statistic > uncovered.statistic


def test_the_parts_of_a_question_the_documents_do_not_answer_are_labelled_none(tmp_path: Path) -> None:
    corpus = embedded_corpus(tmp_path, DOC)
    question = Question("kiln-price", "none", "What does a new kiln cost to insure?", [], absent=["insurance"])
    made = judgements(corpus, question, set())
    assert made and {j.label for j in made} == {"none"}
