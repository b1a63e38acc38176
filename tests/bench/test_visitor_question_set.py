"""The twelfth question set, ``visitor`` (issue 33: every part of a question answered with a citation or named as a
gap): one file per corpus, all five, written at the end of the eighth session before any run of it and kept untouched
for the next session, whose lead runs it once at that session's end to check its change to how each part of a
question is judged answered. It is rich in two-part questions (``uncovered``) and both-parts ones (``halves``), two of
each per corpus (``question_sets.VISITOR_KINDS``); the other checks are outsider's and stranger's, shared in
``question_sets``. Each file is well formed, new against every other set (outsider and stranger included) and
answerable from the corpus; a corpus whose file is still being written by another helper is skipped, with a line
saying so. Nothing here runs the engine or retrieval: the gold is checked against the bench's cached passages,
read-only, as ``research_quality --check-gold`` does.
"""

from __future__ import annotations

import pytest

from bench.quality_corpora import CORPORA, QUESTION_SETS
from tests.bench.question_sets import (
    VISITOR_KINDS,
    assert_answerable_in_users_words,
    assert_planned_set,
    assert_registered_for_every_corpus,
    assert_skipped_without_its_file,
    assert_well_formed_and_new,
    id_prefixes,
)

ID_PREFIX = id_prefixes("vi")
WRITTEN = [name for name, spec in CORPORA.items() if spec.has_set("visitor")]
"""The corpora whose visitor file is in the checkout (three helpers write them at the same time): the tests below
cover each file once it lands."""


def test_every_corpus_registers_the_visitor_set_last() -> None:
    assert QUESTION_SETS[-4:] == ("newcomer", "outsider", "stranger", "visitor") and len(QUESTION_SETS) == 12
    assert set(VISITOR_KINDS) == set(CORPORA)
    assert all(
        sum(VISITOR_KINDS[name].values()) == (10 if name in ("python3-doc", "node-api") else 8) for name in CORPORA
    )
    assert_registered_for_every_corpus("visitor", 11)


@pytest.mark.parametrize("name", WRITTEN)
def test_the_visitor_set_has_the_planned_size_and_kinds(name: str) -> None:
    """The sizes and kinds of ``question_sets.VISITOR_KINDS``; no kind is new; its note says it waits for the next
    session."""
    assert_planned_set(
        name, "visitor", ID_PREFIX[name], new_kinds=set(), kinds=VISITOR_KINDS, note_says=("next session",)
    )


@pytest.mark.parametrize("name", WRITTEN)
def test_visitor_questions_are_well_formed_and_new(name: str) -> None:
    assert_well_formed_and_new(name, "visitor")


@pytest.mark.parametrize("name", WRITTEN)
def test_visitor_gold_is_in_the_corpus_and_questions_are_in_a_users_words(name: str) -> None:
    assert_answerable_in_users_words(CORPORA[name], CORPORA[name].question_set("visitor"))


def test_a_corpus_without_the_visitor_file_is_skipped_with_a_line_saying_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert_skipped_without_its_file("visitor", capsys)
