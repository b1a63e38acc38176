"""The question-set table, ``bench/question_sets.py``: the sets registered so far keep their names, order and roles;
each entry agrees with its files (its id code, the session and day their notes name); what is derived from it (the
lists of each role, ``research_quality --set``'s choices and help) says what the table says. The pins below hold the
sets up to ``scout``, so registering a set (an entry at the end) or its one run (its role) needs no edit here."""

from __future__ import annotations

import json

import pytest

from bench import question_sets as qs
from bench import research_quality as rq
from bench.quality_corpora import CORPORA
from bench.question_sets import (
    DEV_SETS,
    NEVER_TRACED,
    QUESTION_SETS,
    RAN_ONCE,
    RUN_ONCE,
    SETS,
    TRACED,
    UNTOUCHED,
    QuestionSet,
    Role,
)

REGISTERED = (
    *("tuned", "heldout", "fresh", "untouched", "unseen", "blind", "sealed", "pristine", "newcomer", "outsider"),
    *("stranger", "visitor", "wayfarer", "rover", "pilgrim", "nomad", "drifter", "rambler", "trekker", "wanderer"),
    *("voyager", "strider", "roamer", "ranger", "scout"),
)
"""The sets registered when the table was made (the twentieth session), in the order they were written."""
HAD_THEIR_RUN = tuple(s for s in REGISTERED[REGISTERED.index("pristine") : REGISTERED.index("scout")] if s != "rover")
"""The sets written to be run once that had had their run by then: a set that has had it keeps that role, or is
traced as a dev set since (``Role.TRACED``)."""
TRACED_SINCE = ("pristine", "newcomer", "outsider", "stranger", "visitor", "wayfarer", "pilgrim")
"""The sets run once that later sessions' dev runs traced (the twenty-fourth session made their role say so)."""


def test_the_sets_registered_keep_their_names_and_order_and_a_new_one_comes_after() -> None:
    assert QUESTION_SETS[: len(REGISTERED)] == REGISTERED
    assert len(set(QUESTION_SETS)) == len(QUESTION_SETS)
    codes = [s.code for s in SETS]
    assert codes[0] == "" and all(len(c) == 2 and c.isalpha() and c.islower() for c in codes[1:])
    assert len(set(codes)) == len(codes)
    assert [s.written for s in SETS] == sorted(s.written for s in SETS)  # in the order they were written


def test_the_dev_sets_are_those_used_for_decisions_rover_and_the_sets_traced_since_their_run() -> None:
    assert DEV_SETS == ("tuned", "heldout", "fresh", "untouched", "unseen", "blind", "sealed", *TRACED_SINCE[:6],
                        "rover", "pilgrim")  # fmt: skip
    assert TRACED == TRACED_SINCE
    assert RUN_ONCE == tuple(name for name in QUESTION_SETS if name not in DEV_SETS or name in TRACED)
    assert RAN_ONCE[: len(HAD_THEIR_RUN) - len(TRACED)] == tuple(s for s in HAD_THEIR_RUN if s not in TRACED)
    assert set(RAN_ONCE) | set(UNTOUCHED) | set(TRACED) == set(RUN_ONCE)
    assert not set(RAN_ONCE) & set(UNTOUCHED) and not set(TRACED) & (set(RAN_ONCE) | set(UNTOUCHED))
    assert set(NEVER_TRACED) == set(RUN_ONCE) - set(TRACED) == set(RAN_ONCE) | set(UNTOUCHED)


def test_a_set_not_run_yet_waits_for_a_session_after_every_run_made() -> None:
    last = max(s.run_at or 0 for s in SETS if s.role is Role.RAN_ONCE)
    assert all((s.run_at or 0) > last for s in SETS if s.role is Role.UNTOUCHED)


def test_an_entry_run_once_names_its_session_and_a_dev_set_names_none() -> None:
    QuestionSet("kiln", "kn", 21, "2026-11-29", Role.UNTOUCHED, 22, "a glaze set")
    wrong = ((Role.UNTOUCHED, None), (Role.RAN_ONCE, None), (Role.DEV, 22), (Role.RAN_ONCE, 20), (Role.TRACED, None))
    for role, run_at in wrong:
        with pytest.raises(ValueError, match="kiln"):
            QuestionSet("kiln", "kn", 21, "2026-11-29", role, run_at, "a glaze set")


@pytest.mark.parametrize("entry", SETS, ids=lambda s: s.name)
def test_each_files_ids_carry_the_code_and_its_note_the_day_and_session(entry: QuestionSet) -> None:
    """Every id holds the set's code (``sc-...``, ``npm-sc-...``, ``py-bl-...``); from the third session on, every
    note gives the day and python3-doc's names the session that wrote the set."""
    files = [spec.question_set(entry.name) for spec in CORPORA.values() if spec.has_set(entry.name)]
    assert files
    for path in files:
        data = json.loads(path.read_text())
        if entry.code:
            assert all(entry.code in q["id"].split("-")[:2] for q in data["questions"]), path
        if entry.written >= 3:
            assert entry.day in data["note"], path
    if entry.written >= 3:
        python = json.loads(CORPORA["python3-doc"].question_set(entry.name).read_text())["note"]
        assert f"{qs.ordinal(entry.written)} session" in python


def test_sessions_are_named_in_words() -> None:
    assert [qs.ordinal(n) for n in (1, 3, 9, 10, 12, 19, 20, 21, 22, 30, 45)] == [
        *("first", "third", "ninth", "tenth", "twelfth", "nineteenth", "twentieth", "twenty-first", "twenty-second"),
        *("thirtieth", "forty-fifth"),
    ]
    assert SETS[-1].status() in (
        f"untouched until the {qs.ordinal(SETS[-1].run_at or 0)} session's end",
        f"run once at the {qs.ordinal(SETS[-1].run_at or 0)} session's end",
    )


def test_set_is_offered_every_set_with_a_help_saying_each_role(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100000")  # no line wrapped, not even at a hyphen ("twenty-first")
    with pytest.raises(SystemExit):
        rq.parse_args(["--help"])
    shown = capsys.readouterr().out
    assert "--set {" + ",".join(QUESTION_SETS) + "}" in shown
    dev = ", ".join(s.name for s in SETS if s.role is Role.DEV)
    traced = ", ".join(f"{s.name} ({qs.ordinal(s.run_at or 0)})" for s in SETS if s.role is Role.TRACED)
    assert f"run as often as needed: {dev}, and run once then traced: {traced};" in shown
    for s in SETS:
        if s.run_at:
            assert f"{s.name} ({qs.ordinal(s.run_at)})" in shown
    waiting = [f"{s.name} ({qs.ordinal(s.run_at or 0)})" for s in SETS if s.role is Role.UNTOUCHED]
    assert ("untouched until the lead runs it once" in shown) == bool(waiting)
    assert all(w in shown.split("untouched until the lead runs it once")[1] for w in waiting)


def test_the_table_prints_a_row_per_set(capsys: pytest.CaptureFixture[str]) -> None:
    assert qs.main() == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    assert [row.split(" | ")[1] for row in rows] == list(QUESTION_SETS)
