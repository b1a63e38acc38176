"""The tenth session's ``rover`` set: only ``none`` questions (the docs do not answer them anywhere), a dev set to
work on honesty with (a report should say the documents do not answer, not present loosely related passages).
Unlike the sets before it, it is run freely: ``wayfarer``'s ``none`` questions stay the untouched check. Nothing
here runs the engine or retrieval."""

from __future__ import annotations

import json

import pytest

from bench import evidence_stages
from bench import research_quality as rq
from bench.quality_corpora import CORPORA, QUESTION_DIR, QUESTION_SETS
from bench.question_sets import RUN_ONCE
from tests.bench.question_sets import (
    assert_answerable_in_users_words,
    assert_well_formed_and_new,
    id_prefixes,
)

ROVER_SIZE = 8
"""``none`` questions per corpus."""


def test_rover_is_registered_for_every_corpus_and_is_a_dev_set() -> None:
    assert QUESTION_SETS[13] == "rover"  # then pilgrim ..., each to be run once
    assert set(QUESTION_SETS[14:]) <= set(RUN_ONCE)
    assert CORPORA["python3-doc"].question_files["rover"] == QUESTION_DIR.parent / "research_questions_rover.json"
    for name in ("npm-docs", "zsh-doc", "pdf-manuals", "node-api"):
        assert CORPORA[name].question_files["rover"] == QUESTION_DIR / f"{name}-rover.json"
    assert all(spec.has_set("rover") for spec in CORPORA.values())
    assert "rover" in evidence_stages.DIAGNOSED and "rover" not in RUN_ONCE  # traced freely


@pytest.mark.parametrize("name", list(CORPORA))
def test_each_file_holds_only_none_questions_naming_what_is_absent(name: str) -> None:
    path = CORPORA[name].question_set("rover")
    note = json.loads(path.read_text())["note"]
    assert "rover" in note.lower() and "2026-11-27" in note and "tenth session" in note and "absent" in note
    questions = rq.load_questions(path)  # the bench's own loader accepts it
    assert len(questions) == ROVER_SIZE
    assert all(q.type == rq.NONE_KIND and q.absent and not q.gold and not q.pages for q in questions)
    assert all(not q.answerable and rq.kind_problem(q) is None for q in questions)
    assert all(q.id.startswith(id_prefixes("rv")[name]) for q in questions)
    assert_well_formed_and_new(name, "rover")


@pytest.mark.parametrize("name", list(CORPORA))
def test_each_files_questions_are_in_a_users_words(name: str) -> None:
    """No question shares more than five consecutive words with a passage (skipped where the corpus is not ingested)."""
    spec = CORPORA[name]
    assert_answerable_in_users_words(spec, spec.question_set("rover"))
