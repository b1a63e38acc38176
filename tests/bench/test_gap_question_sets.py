"""The sets written to be run once from the eighth session on: its three for issue 33 (every part of a question
answered with a citation or named as a gap), written to one brief: ``outsider`` (which brought ``both-parts``),
``stranger`` (the same kinds) and ``visitor`` (richer in two-part questions); the ninth session's ``wayfarer`` (which
brought ``none``: questions the docs do not answer at all); and every set since ``pilgrim``, written to pilgrim's
brief. One file per corpus each; the same checks for every file, planned from the set's entry in
``bench/question_sets.py`` (its id code, place, session and day) and its brief's kinds: the planned sizes and kinds,
the note, ids with the set's prefix, well formed and new against every other set, gold in the corpus and questions in
a user's words. A corpus whose file is still being written by another helper is skipped, with a line saying so.
Nothing here runs the engine or retrieval: the gold is checked against the bench's cached passages, read-only, as
``research_quality --check-gold`` does. ``test_outsider_question_set.py`` tests the kind and metrics outsider brought.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from bench import evidence_stages
from bench.quality_corpora import CORPORA, QUESTION_SETS
from bench.question_sets import RAN_ONCE, RUN_ONCE, SETS, UNTOUCHED, QuestionSet, ordinal
from tests.bench.question_sets import (
    GAPS_KINDS,
    PILGRIM_KINDS,
    VISITOR_KINDS,
    WAYFARER_KINDS,
    assert_answerable_in_users_words,
    assert_planned_set,
    assert_registered_for_every_corpus,
    assert_skipped_without_its_file,
    assert_well_formed,
    assert_well_formed_and_new,
    id_prefixes,
)


@dataclass(frozen=True)
class Plan:
    """What one set's brief planned."""

    code: str
    """The ids' short code (``os``: ``os-``, ``npm-os-`` ...)."""
    position: int
    """Its place in ``QUESTION_SETS``."""
    new_kinds: set[str] = field(default_factory=set)
    """Kinds no earlier set had."""
    kinds: dict[str, dict[str, int]] = field(default_factory=lambda: GAPS_KINDS)
    note_says: tuple[str, ...] = ()
    session: str = "eighth session"
    """The session that wrote it, as its notes say."""
    date: str = "2026-11-27"
    """The day it was written, as its notes say."""


KINDS = {"outsider": GAPS_KINDS, "stranger": GAPS_KINDS, "visitor": VISITOR_KINDS, "wayfarer": WAYFARER_KINDS}
"""Each brief's kinds and sizes up to wayfarer; every set after it was written to pilgrim's (``PILGRIM_KINDS``)."""
NEW_KINDS = {"outsider": {"both-parts"}, "wayfarer": {"none"}}
"""The kinds a set brought that no earlier set had."""
NAMED_FROM = 18
"""The first session whose sets' notes name the session that runs them; earlier, a set run at a later session's end
says it waits for the "next session"."""


def planned(entry: QuestionSet) -> Plan:
    """What the set's brief planned, from its table entry (``bench/question_sets.py``)."""
    kinds = KINDS.get(entry.name, PILGRIM_KINDS)
    waits: tuple[str, ...] = ()
    if entry.run_at != entry.written:
        waits = (f"{ordinal(entry.run_at or 0)} session" if entry.written >= NAMED_FROM else "next session",)
    absent = ("absent",) if any("none" in k for k in kinds.values()) else ()
    return Plan(
        entry.code,
        QUESTION_SETS.index(entry.name),
        NEW_KINDS.get(entry.name, set()),
        kinds=kinds,
        note_says=waits + absent,
        session=f"{ordinal(entry.written)} session",
        date=entry.day,
    )


PLANS = {s.name: planned(s) for s in SETS[QUESTION_SETS.index("outsider") :] if s.name in RUN_ONCE}
"""Every set written to be run once from outsider on (the dev set rover has tests of its own)."""
WRITTEN = [(set_, name) for set_ in PLANS for name, spec in CORPORA.items() if spec.has_set(set_)]
"""Each set's corpora whose file is in the checkout (three helpers write a set's files at the same time): the tests
below cover each file once it lands."""


def test_the_sets_from_newcomer_on_come_in_the_order_they_were_written() -> None:
    assert QUESTION_SETS[8:14] == ("newcomer", "outsider", "stranger", "visitor", "wayfarer", "rover")
    assert list(PLANS)[:5] == ["outsider", "stranger", "visitor", "wayfarer", "pilgrim"]  # then one each session
    assert set(PILGRIM_KINDS) == set(CORPORA) - {"node-api"}
    for kinds in (VISITOR_KINDS, WAYFARER_KINDS):
        assert set(kinds) == set(CORPORA)
        assert all(sum(kinds[name].values()) == (10 if name in ("python3-doc", "node-api") else 8) for name in CORPORA)
    assert all(WAYFARER_KINDS[name]["none"] == 2 for name in CORPORA)


@pytest.mark.parametrize("name", UNTOUCHED)
def test_a_set_not_run_yet_waits_untouched_for_its_one_run(name: str) -> None:
    """Written to be run once, by the lead of the session its entry names, at that session's end: refused by every
    bench but ``research_quality``'s checks until then."""
    assert name in RUN_ONCE and name not in RAN_ONCE
    assert name not in evidence_stages.DIAGNOSED


@pytest.mark.parametrize("name", RAN_ONCE)
def test_the_sets_run_once_have_had_their_run_and_are_still_never_traced(name: str) -> None:
    """Run once by a session's lead at its end: benches that never tune may now read them as a check, and
    ``evidence_stages`` still refuses to trace them."""
    assert name in RUN_ONCE and name not in UNTOUCHED
    assert name not in evidence_stages.DIAGNOSED


@pytest.mark.parametrize("question_set", PLANS)
def test_every_corpus_registers_the_set_in_its_place(question_set: str) -> None:
    assert_registered_for_every_corpus(question_set, PLANS[question_set].position)


@pytest.mark.parametrize(("question_set", "name"), WRITTEN)
def test_each_file_has_the_planned_size_and_kinds(question_set: str, name: str) -> None:
    """Outsider and stranger: ``question_sets.GAPS_KINDS`` (both-parts new in outsider); visitor: ``VISITOR_KINDS``,
    no kind new, its note saying it waits for the next session; wayfarer: ``WAYFARER_KINDS``, ``none`` new, its note
    saying what ``absent`` means; every later set: ``PILGRIM_KINDS``, its note saying when it runs."""
    plan = PLANS[question_set]
    prefix = id_prefixes(plan.code)[name]
    assert_planned_set(
        name,
        question_set,
        prefix,
        plan.new_kinds,
        kinds=plan.kinds,
        note_says=plan.note_says,
        session=plan.session,
        date=plan.date,
    )


@pytest.mark.parametrize(("question_set", "name"), WRITTEN)
def test_each_files_questions_are_well_formed_and_new(question_set: str, name: str) -> None:
    assert_well_formed_and_new(name, question_set)


@pytest.mark.parametrize(("question_set", "name"), WRITTEN)
def test_each_files_gold_is_in_the_corpus_and_questions_are_in_a_users_words(question_set: str, name: str) -> None:
    assert_answerable_in_users_words(CORPORA[name], CORPORA[name].question_set(question_set))


@pytest.mark.parametrize("question_set", PLANS)
def test_a_corpus_without_the_sets_file_is_skipped_with_a_line_saying_so(
    question_set: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_skipped_without_its_file(question_set, capsys)


def test_a_none_question_is_well_formed_only_without_gold_or_pages_and_with_what_is_absent() -> None:
    """The kind wayfarer brings: the docs do not answer it at all, so nothing to find, and ``absent`` says what."""
    good = {
        "id": "x-wf-clay",
        "type": "none",
        "question": "Which brand of clay is cheapest for my kiln?",
        "pages": [],
        "gold": [],
        "absent": ["clay prices by brand"],
    }
    assert_well_formed([good], most_gold=3)
    for bad in (
        {**good, "gold": ["fire the kiln to cone six"]},
        {**good, "pages": ["kiln.html"]},
        {**good, "absent": []},
        {**good, "absent": [" "]},
        {key: value for key, value in good.items() if key != "absent"},
        {**good, "uncovered": ["clay prices"]},
        {**good, "type": "how-to", "gold": ["fire the kiln to cone six", "let it cool"], "pages": ["kiln.html"]},
    ):
        with pytest.raises(AssertionError):
            assert_well_formed([bad], most_gold=3)
