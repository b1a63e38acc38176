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
from tests.bench.question_sets import (
    assert_answerable_in_users_words,
    assert_well_formed,
    corpora_with,
    raw_questions,
)

SIZES = {"python3-doc": 8, "npm-docs": 6, "zsh-doc": 6, "pdf-manuals": 6}
"""How many fresh questions each corpus got (the brief of the session that wrote them)."""


def earlier_questions(spec: CorpusSpec) -> list[dict]:
    return raw_questions(spec.question_set("tuned")) + raw_questions(spec.question_set("heldout"))


def test_every_corpus_with_a_fresh_set_has_the_planned_size_and_kinds() -> None:
    assert set(SIZES) == set(corpora_with("fresh")) == set(CORPORA) - {"node-api"}
    for name, spec in corpora_with("fresh").items():
        fresh = spec.question_set("fresh")
        assert fresh not in (spec.question_set("tuned"), spec.question_set("heldout")) and fresh.is_file(), name
        data = json.loads(fresh.read_text())
        assert "untouched" in data["note"] and "2026-11-26" in data["note"], name
        questions = rq.load_questions(fresh)  # the bench's own loader accepts it
        assert len(questions) == SIZES[name], name
        kinds = {q.type for q in questions}
        assert kinds <= {q["type"] for q in earlier_questions(spec)}, (name, kinds)  # the types the sets use
        assert len(kinds) >= 4 and "safety" in kinds and "how-to" in kinds, (name, kinds)


def test_fresh_questions_are_well_formed() -> None:
    for spec in corpora_with("fresh").values():
        assert_well_formed(raw_questions(spec.question_set("fresh")), most_gold=4)


def test_fresh_questions_are_new() -> None:
    ids: set[str] = set()
    for spec in corpora_with("fresh").values():
        fresh = raw_questions(spec.question_set("fresh"))
        for q in earlier_questions(spec) + fresh:
            assert q["id"] not in ids, q["id"]
            ids.add(q["id"])
        asked = {qm.normalise(q["question"]) for q in earlier_questions(spec)}
        assert not asked & {qm.normalise(q["question"]) for q in fresh}, spec.name


@pytest.mark.parametrize("name", list(SIZES))
def test_fresh_gold_is_in_the_corpus_and_questions_are_in_a_users_words(name: str) -> None:
    assert_answerable_in_users_words(CORPORA[name], CORPORA[name].question_set("fresh"))


def test_fresh_is_an_explicit_choice_and_excludes_heldout(capsys: pytest.CaptureFixture[str]) -> None:
    spec = CORPORA["zsh-doc"]
    assert rq.question_file(spec, rq.parse_args([])) == spec.question_set("tuned")
    assert rq.question_file(spec, rq.parse_args(["--heldout"])) == spec.question_set("heldout")
    assert rq.question_file(spec, rq.parse_args(["--fresh"])) == spec.question_set("fresh")
    other = Path("elsewhere.json")
    assert rq.question_file(spec, rq.parse_args(["--corpus", "zsh-doc", "--questions", str(other)])) == other
    assert rq.set_kind(rq.parse_args(["--fresh"])) == "fresh"
    with pytest.raises(SystemExit):
        rq.parse_args(["--fresh", "--heldout"])
    assert "not allowed with argument" in capsys.readouterr().err
