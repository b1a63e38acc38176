"""``bench.evidence_stages`` traces the dev sets only and refuses those written to be run once (unless traced as dev
sets since their run); where a phrase stops."""

from __future__ import annotations

import pytest

from bench import evidence_stages
from bench.question_sets import DEV_SETS, NEVER_TRACED, QUESTION_SETS, RUN_ONCE, TRACED


def test_every_set_but_those_written_to_be_run_once_may_be_traced() -> None:
    assert set(evidence_stages.DIAGNOSED) == set(QUESTION_SETS) - set(RUN_ONCE) | set(TRACED) == set(DEV_SETS)


@pytest.mark.parametrize("refused", NEVER_TRACED)
def test_a_set_run_once_is_refused_with_the_allowed_names(refused: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        evidence_stages.main(["--set", refused])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"invalid choice: '{refused}'" in err and all(name in err for name in evidence_stages.DIAGNOSED)


def test_a_phrase_in_the_findings_but_not_the_answer_stops_at_the_report_stage() -> None:
    run = {
        "pool": {"p1", "p2"},
        "top": {"p1", "p2"},
        "shown": {"p1", "p2"},
        "ranked": ["Let the kiln cool overnight.", "Vent the lid at 600 degrees."],
        "drafted": ["- Let the kiln cool overnight. [1]", "- Vent the lid at 600 degrees. [2]"],
        "kept": ["Let the kiln cool overnight.", "Vent the lid at 600 degrees."],
        "report": (
            "## Answer\n\nLet the kiln cool overnight. [1]\n\n## Findings\n\n- Vent the lid at 600 degrees. [2]\n"
        ),
    }
    gold = {"cool overnight": {"p1"}, "vent the lid": {"p2"}, "glaze the rim": set()}
    answered, found, missed = evidence_stages.stages_of(run, gold, ["cool overnight", "vent the lid", "glaze the rim"])
    assert all(answered.values())
    assert found["report"] and not found["answer"]
    assert not any(missed.values())


def test_a_phrase_ranked_but_not_drafted_says_where_its_sentence_stood() -> None:
    run = {
        "pool": {"p1"},
        "top": {"p1"},
        "shown": {"p1"},
        "ranked": ["Let the kiln cool overnight.", "Vent the lid at 600 degrees."],
        "places": ["1/2 [1]", "2/2 [1]"],
        "drafted": ["- Let the kiln cool overnight. [1]"],
        "kept": ["Let the kiln cool overnight."],
        "report": "## Answer\n\nLet the kiln cool overnight. [1]\n",
    }
    gold = {"cool overnight": {"p1"}, "vent the lid": {"p1"}}
    [_, vent] = evidence_stages.stages_of(run, gold, ["cool overnight", "vent the lid"])
    assert evidence_stages.lost_label(run, "vent the lid", vent) == "drafted(2/2 [1]):'vent the lid'"
    assert evidence_stages.ranked_place(run, "glaze the rim") == ""


def test_warnings_trace_a_safety_questions_caveat_and_leave_the_others_out() -> None:
    from bench.research_quality import Question

    caveat = ["never open the lid above 200 degrees"]
    safety = Question("k-cool", "safety", "Can I open the kiln while it is hot?", ["cool overnight"], warning=caveat)
    plain = Question("k-glaze", "how_to", "How do I glaze a rim?", ["dip the rim"])
    nothing = Question("k-colour", "none", "What colour is the kiln?", [])
    assert [q.gold for q in evidence_stages.traced([safety, plain, nothing])] == [["cool overnight"], ["dip the rim"]]
    [traced] = evidence_stages.traced([safety, plain, nothing], warnings=True)
    assert traced.id == "k-cool" and traced.gold == ["never open the lid above 200 degrees"]
    assert safety.gold == ["cool overnight"]  # the question itself is not changed
