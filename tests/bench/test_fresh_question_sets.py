"""The fresh question sets (issue 29 item 7): well formed, new, answerable from the corpus, and run
only by an explicit ``--fresh``. Nothing here runs the engine or retrieval: the gold is checked
against the bench's cached passages, read-only, as ``research_quality --check-gold`` does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import quality_metrics as qm
from bench import research_quality as rq
from bench.quality_corpora import CORPORA, CorpusSpec
from tests.bench.question_sets import assert_answerable_in_users_words, assert_well_formed, raw_questions

SIZES = {"python3-doc": 8, "npm-docs": 6, "zsh-doc": 6, "pdf-manuals": 6}
"""How many fresh questions each corpus got (the brief of the session that wrote them)."""


def earlier_questions(spec: CorpusSpec) -> list[dict]:
    return raw_questions(spec.questions) + raw_questions(spec.heldout)


def test_every_corpus_has_a_fresh_set_of_the_planned_size_and_kinds() -> None:
    assert set(SIZES) == set(CORPORA)
    for name, spec in CORPORA.items():
        assert spec.fresh not in (spec.questions, spec.heldout) and spec.fresh.is_file(), name
        data = json.loads(spec.fresh.read_text())
        assert "untouched" in data["note"] and "2026-11-26" in data["note"], name
        questions = rq.load_questions(spec.fresh)  # the bench's own loader accepts it
        assert len(questions) == SIZES[name], name
        kinds = {q.type for q in questions}
        assert kinds <= {q["type"] for q in earlier_questions(spec)}, (name, kinds)  # the types the sets use
        assert len(kinds) >= 4 and "safety" in kinds and "how-to" in kinds, (name, kinds)


def test_fresh_questions_are_well_formed() -> None:
    for spec in CORPORA.values():
        assert_well_formed(raw_questions(spec.fresh), most_gold=4)


def test_fresh_questions_are_new() -> None:
    ids: set[str] = set()
    for spec in CORPORA.values():
        for q in earlier_questions(spec) + raw_questions(spec.fresh):
            assert q["id"] not in ids, q["id"]
            ids.add(q["id"])
        asked = {qm.normalise(q["question"]) for q in earlier_questions(spec)}
        assert not asked & {qm.normalise(q["question"]) for q in raw_questions(spec.fresh)}, spec.name


@pytest.mark.parametrize("name", list(SIZES))
def test_fresh_gold_is_in_the_corpus_and_questions_are_in_a_users_words(name: str) -> None:
    assert_answerable_in_users_words(CORPORA[name], CORPORA[name].fresh)


def test_fresh_is_an_explicit_choice_and_excludes_heldout(capsys: pytest.CaptureFixture[str]) -> None:
    spec = CORPORA["zsh-doc"]
    assert rq.question_file(spec, rq.parse_args([])) == spec.questions
    assert rq.question_file(spec, rq.parse_args(["--heldout"])) == spec.heldout
    assert rq.question_file(spec, rq.parse_args(["--fresh"])) == spec.fresh
    other = Path("elsewhere.json")
    assert rq.question_file(spec, rq.parse_args(["--corpus", "zsh-doc", "--questions", str(other)])) == other
    assert rq.set_kind(rq.parse_args(["--fresh"])) == "fresh"
    with pytest.raises(SystemExit):
        rq.parse_args(["--fresh", "--heldout"])
    assert "not allowed with argument" in capsys.readouterr().err
