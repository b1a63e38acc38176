"""The eighth session's three sets for issue 33 (every part of a question answered with a citation or named as a
gap), written to one brief: ``outsider`` (the tenth, which brought ``both-parts``), ``stranger`` (the eleventh, the
same kinds) and ``visitor`` (the twelfth, richer in two-part questions); and the ninth session's ``wayfarer`` (the
thirteenth, which brings ``none``: questions the docs do not answer at all; kept untouched for the next session). One
file per corpus each; the same checks for every file, from one table: the planned sizes and kinds, the note, ids
with the set's prefix, well formed and new against every other set, gold in the corpus and questions in a user's
words. A corpus whose file is still being written by another helper is skipped, with a line saying so. Nothing here
runs the engine or retrieval: the gold is checked against the bench's cached passages, read-only, as
``research_quality --check-gold`` does. ``test_outsider_question_set.py`` tests the kind and metrics outsider brought.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from bench import evidence_stages
from bench.quality_corpora import CORPORA, QUESTION_SETS
from tests.bench.question_sets import (
    DRIFTER_KINDS,
    GAPS_KINDS,
    NOMAD_KINDS,
    PILGRIM_KINDS,
    RAMBLER_KINDS,
    RANGER_KINDS,
    ROAMER_KINDS,
    SCOUT_KINDS,
    STRIDER_KINDS,
    TREKKER_KINDS,
    VISITOR_KINDS,
    VOYAGER_KINDS,
    WANDERER_KINDS,
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


LATE_NOTE = ("next session", "absent")
"""What the note of a set written from a brief for the next session's end says."""
SECOND_DAY = "2026-11-28"
ROAMER_NOTE = ("nineteenth session", "absent")
"""What roamer's notes say: they name the session whose lead runs it (the nineteenth) rather than "next session"."""
RANGER_NOTE = ("twentieth session", "absent")
"""What ranger's notes say: they name the session whose lead runs it (the twentieth) rather than "next session"."""
SCOUT_NOTE = ("twenty-first session", "absent")
"""What scout's notes say: they name the session whose lead runs it (the twenty-first) rather than "next session"."""

PLANS = {
    "outsider": Plan("os", 9, {"both-parts"}),
    "stranger": Plan("st", 10),
    "visitor": Plan("vi", 11, kinds=VISITOR_KINDS, note_says=("next session",)),
    "wayfarer": Plan("wf", 12, {"none"}, kinds=WAYFARER_KINDS, note_says=LATE_NOTE, session="ninth session"),
    "pilgrim": Plan("pg", 14, kinds=PILGRIM_KINDS, note_says=LATE_NOTE, session="tenth session"),
    "nomad": Plan("nm", 15, kinds=NOMAD_KINDS, note_says=LATE_NOTE, session="eleventh session"),
    "drifter": Plan("dr", 16, kinds=DRIFTER_KINDS, note_says=LATE_NOTE, session="twelfth session"),
    "rambler": Plan("rb", 17, kinds=RAMBLER_KINDS, note_says=LATE_NOTE, session="thirteenth session"),
    "trekker": Plan("tk", 18, kinds=TREKKER_KINDS, note_says=LATE_NOTE, session="fourteenth session"),
    "wanderer": Plan("wd", 19, kinds=WANDERER_KINDS, note_says=LATE_NOTE, session="fifteenth session", date=SECOND_DAY),
    "voyager": Plan("vy", 20, kinds=VOYAGER_KINDS, note_says=LATE_NOTE, session="sixteenth session", date=SECOND_DAY),
    "strider": Plan("sd", 21, kinds=STRIDER_KINDS, note_says=LATE_NOTE, session="seventeenth session", date=SECOND_DAY),
    "roamer": Plan("rm", 22, kinds=ROAMER_KINDS, note_says=ROAMER_NOTE, session="eighteenth session", date=SECOND_DAY),
    "ranger": Plan("rg", 23, kinds=RANGER_KINDS, note_says=RANGER_NOTE, session="nineteenth session", date=SECOND_DAY),
    "scout": Plan("sc", 24, kinds=SCOUT_KINDS, note_says=SCOUT_NOTE, session="twentieth session", date=SECOND_DAY),
}
WRITTEN = [(set_, name) for set_ in PLANS for name, spec in CORPORA.items() if spec.has_set(set_)]
"""Each set's corpora whose file is in the checkout (three helpers write a set's files at the same time): the tests
below cover each file once it lands."""


def test_the_four_sets_come_last_in_the_order_they_were_written() -> None:
    assert QUESTION_SETS[8:11] == ("newcomer", "outsider", "stranger")
    assert QUESTION_SETS[-17:-12] == ("newcomer", "outsider", "stranger", "visitor", "wayfarer")
    assert len(QUESTION_SETS) == 25  # then rover, a dev set (test_rover_question_set.py), pilgrim ... scout
    late = ("pilgrim", "nomad", "drifter", "rambler", "trekker", "wanderer", "voyager", "strider", "roamer", "ranger")
    assert QUESTION_SETS[-11:] == (*late, "scout")
    assert set(PILGRIM_KINDS) == set(CORPORA) - {"node-api"}
    assert SCOUT_KINDS == RANGER_KINDS == ROAMER_KINDS == STRIDER_KINDS == VOYAGER_KINDS == WANDERER_KINDS
    assert WANDERER_KINDS == TREKKER_KINDS
    assert TREKKER_KINDS == RAMBLER_KINDS
    assert RAMBLER_KINDS == DRIFTER_KINDS
    assert DRIFTER_KINDS == NOMAD_KINDS
    assert NOMAD_KINDS == PILGRIM_KINDS
    for kinds in (VISITOR_KINDS, WAYFARER_KINDS):
        assert set(kinds) == set(CORPORA)
        assert all(sum(kinds[name].values()) == (10 if name in ("python3-doc", "node-api") else 8) for name in CORPORA)
    assert all(WAYFARER_KINDS[name]["none"] == 2 for name in CORPORA)


def test_scout_waits_untouched_for_its_one_run() -> None:
    """Written to be run once, by the twenty-first session's lead at its end: refused by every bench but
    ``research_quality``'s checks; ranger had its run at the twentieth session's end."""
    assert evidence_stages.UNTOUCHED == ("scout",)
    assert "scout" not in evidence_stages.RAN_ONCE and "ranger" in evidence_stages.RAN_ONCE


@pytest.mark.parametrize(
    "name", ["pilgrim", "nomad", "drifter", "rambler", "trekker", "wanderer", "voyager", "strider", "roamer", "ranger"]
)
def test_the_sets_run_once_have_had_their_run_and_are_still_never_traced(name: str) -> None:
    """Run once by the eleventh to twentieth sessions' leads at their ends: benches that never tune may now read them
    as a check, and ``evidence_stages`` still refuses to trace them."""
    assert name in evidence_stages.RAN_ONCE and name not in evidence_stages.UNTOUCHED
    assert name not in evidence_stages.DIAGNOSED


def test_wayfarer_has_had_its_one_run_and_is_still_never_traced() -> None:
    """Run once by the tenth session's lead at its end: benches that never tune may now read it as a check, and
    ``evidence_stages`` still refuses to trace it."""
    assert "wayfarer" in evidence_stages.RAN_ONCE and "wayfarer" not in evidence_stages.UNTOUCHED
    assert "wayfarer" not in evidence_stages.DIAGNOSED


@pytest.mark.parametrize("question_set", PLANS)
def test_every_corpus_registers_the_set_in_its_place(question_set: str) -> None:
    assert_registered_for_every_corpus(question_set, PLANS[question_set].position)


@pytest.mark.parametrize(("question_set", "name"), WRITTEN)
def test_each_file_has_the_planned_size_and_kinds(question_set: str, name: str) -> None:
    """Outsider and stranger: ``question_sets.GAPS_KINDS`` (both-parts new in outsider); visitor: ``VISITOR_KINDS``,
    no kind new, its note saying it waits for the next session; wayfarer: ``WAYFARER_KINDS``, ``none`` new, its note
    saying what ``absent`` means."""
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
