"""What the tenth question set, ``outsider`` (issue 33), brought to the bench: a new kind, ``both-parts`` (two asks,
both answered by the docs; ``halves`` names them), beside ``two-part`` (one half the docs do not answer;
``uncovered``), and the two metrics it makes possible, tested on synthetic reports. The checks outsider's files share
with stranger's and visitor's (sizes, kinds, note, gold in the corpus) are in ``test_gap_question_sets.py``.
"""

from __future__ import annotations

import pytest

from bench import quality_metrics as qm
from bench import research_quality as rq
from tests.bench.question_sets import assert_well_formed


def test_both_parts_is_well_formed_only_with_two_halves_and_no_uncovered_part() -> None:
    good = {
        "id": "x-os-glaze",
        "type": "both-parts",
        "question": "How hot should the kiln get, and how long should the pots cool?",
        "pages": ["kiln.html"],
        "gold": ["fire the kiln to cone six", "let the ware cool for a day"],
        "halves": ["how hot the kiln gets", "how long pots cool"],
    }
    assert_well_formed([good], most_gold=3)
    for bad in (
        {**good, "halves": ["how hot the kiln gets"]},
        {**good, "halves": ["how hot the kiln gets", " "]},
        {**good, "uncovered": ["how long pots cool"]},
        {key: value for key, value in good.items() if key != "halves"},
        {**good, "type": "two-part", "uncovered": ["how long pots cool"]},  # halves belong to both-parts only
    ):
        with pytest.raises(AssertionError):
            assert_well_formed([bad], most_gold=3)


# -- the two metrics both-parts questions bring ----------------------------------------------------

HALVES = ["how hot the kiln gets", "how long the pots cool"]
NAMES_A_COVERED_HALF = (
    "## Answer\n\nFire to cone six [1] and let the pots cool for a day. [2]\n\n"
    "## Gaps\n\n- The documents say nothing clear about cooling the pots.\n"
)
NAMES_ONLY_THE_UNCOVERED_HALF = (
    "## Answer\n\nFire to cone six. [1]\n\n## Gaps\n\n- Nothing on which glaze supplier to buy from.\n"
)
NO_GAPS = (
    "## Answer\n\nFire to cone six [1] and let the pots cool for a day. [2]\n\n## Findings\n\n- Cool slowly. [2]\n"
)


def test_a_gap_naming_a_covered_half_is_a_false_gap() -> None:
    assert [qm.covered_half_gapped(NAMES_A_COVERED_HALF, half) for half in HALVES] == [False, True]
    assert not any(qm.covered_half_gapped(NAMES_ONLY_THE_UNCOVERED_HALF, half) for half in HALVES)
    assert not any(qm.covered_half_gapped(NO_GAPS, half) for half in HALVES)  # a finding is not a gap
    # the same rule as uncovered_named, so the two counts compare
    for report in (NAMES_A_COVERED_HALF, NAMES_ONLY_THE_UNCOVERED_HALF, NO_GAPS):
        for part in (*HALVES, "which glaze supplier to buy from"):
            assert qm.covered_half_gapped(report, part) == qm.uncovered_named(report, part)


def test_gaps_when_found_counts_only_fully_answered_questions_whose_report_found_gold() -> None:
    assert qm.gaps_when_found(NAMES_A_COVERED_HALF, found_gold=True, has_uncovered=False) is True
    assert qm.gaps_when_found(NAMES_ONLY_THE_UNCOVERED_HALF, found_gold=True, has_uncovered=False) is True
    assert qm.gaps_when_found(NO_GAPS, found_gold=True, has_uncovered=False) is False
    assert qm.gaps_when_found(NAMES_A_COVERED_HALF, found_gold=False, has_uncovered=False) is None  # nothing found
    assert qm.gaps_when_found(NAMES_ONLY_THE_UNCOVERED_HALF, found_gold=True, has_uncovered=True) is None  # a real gap


def test_the_table_prints_both_metrics_as_n_of_m() -> None:
    both = rq.Question(
        "x-os-kiln", "both-parts", "How hot, and how long to cool?", ["cone six", "cool for a day"], halves=HALVES
    )
    two = rq.Question(
        "x-os-glaze", "two-part", "How hot, and which supplier?", ["cone six", "fire to cone"], uncovered=["supplier"]
    )
    plain = rq.Question("x-os-plain", "how-to", "How hot?", ["fire to cone six", "nothing else"])
    rows = [
        rq.score(both, {"output": NAMES_A_COVERED_HALF, "claims": [], "seconds": 1.0}),
        rq.score(two, {"output": NAMES_ONLY_THE_UNCOVERED_HALF, "claims": [], "seconds": 1.0}),
        rq.score(plain, {"output": NO_GAPS, "claims": [], "seconds": 1.0}),
    ]
    assert [(r["covered_halves"], r["halves_gapped"]) for r in rows] == [(2, 1), (0, 0), (0, 0)]
    summary = rq.summarise(rows)
    assert (summary["halves_gapped"], summary["covered_halves"]) == (1, 2)
    assert (summary["gapped_when_found"], summary["found_n"]) == (1, 2)  # the two-part question does not count
    mode = rq.MODES[-1]
    cells = table_cells(rq.corpus_table({mode: summary}), mode)
    assert (cells["covered halves called gaps"], cells["gaps when found"]) == ("1 of 2", "1 of 2")
    cells = table_cells(rq.corpus_table({mode: rq.summarise([rows[1]])}), mode)  # no both-parts, none found in full
    assert (cells["covered halves called gaps"], cells["gaps when found"]) == ("n/a", "n/a")


def table_cells(table: str, mode: str) -> dict[str, str]:
    """A mode's row of a corpus table, by column name."""
    lines = table.splitlines()
    row = next(line for line in lines if line.startswith(f"| {mode} "))
    names, values = ([cell.strip() for cell in line.strip().strip("|").split("|")] for line in (lines[0], row))
    return dict(zip(names, values, strict=True))
