"""The eleventh question set, ``stranger`` (issue 33: every part of a question answered with a citation or named as a
gap): one file per corpus, all five, written later in the eighth session the way ``outsider`` was, before any run of
it, so the lead has a second untouched check of that session's change to how each part of a question is judged
answered. Same kinds and sizes as outsider (``question_sets.GAPS_KINDS``: ``two-part`` with ``uncovered``,
``both-parts`` with ``halves``), so the checks are outsider's, shared in ``question_sets``. Each file is well formed,
new against every other set (outsider included) and answerable from the corpus; a corpus whose file is still being
written by another helper is skipped, with a line saying so. Nothing here runs the engine or retrieval: the gold is
checked against the bench's cached passages, read-only, as ``research_quality --check-gold`` does.
"""

from __future__ import annotations

import pytest

from bench.quality_corpora import CORPORA, QUESTION_SETS
from tests.bench.question_sets import (
    assert_answerable_in_users_words,
    assert_planned_set,
    assert_registered_for_every_corpus,
    assert_skipped_without_its_file,
    assert_well_formed_and_new,
    id_prefixes,
)

ID_PREFIX = id_prefixes("st")
WRITTEN = [name for name, spec in CORPORA.items() if spec.has_set("stranger")]
"""The corpora whose stranger file is in the checkout (three helpers write them at the same time): the tests below
cover each file once it lands."""


def test_every_corpus_registers_the_stranger_set_eleventh() -> None:
    assert QUESTION_SETS[8:11] == ("newcomer", "outsider", "stranger")  # visitor, the twelfth, came after it
    assert_registered_for_every_corpus("stranger", 10)


@pytest.mark.parametrize("name", WRITTEN)
def test_the_stranger_set_has_the_planned_size_and_kinds(name: str) -> None:
    """The sizes and kinds of ``question_sets.GAPS_KINDS``, outsider's; no kind is new."""
    assert_planned_set(name, "stranger", ID_PREFIX[name], new_kinds=set())


@pytest.mark.parametrize("name", WRITTEN)
def test_stranger_questions_are_well_formed_and_new(name: str) -> None:
    assert_well_formed_and_new(name, "stranger")


@pytest.mark.parametrize("name", WRITTEN)
def test_stranger_gold_is_in_the_corpus_and_questions_are_in_a_users_words(name: str) -> None:
    assert_answerable_in_users_words(CORPORA[name], CORPORA[name].question_set("stranger"))


def test_a_corpus_without_the_stranger_file_is_skipped_with_a_line_saying_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert_skipped_without_its_file("stranger", capsys)
