"""The untouched question sets (issue 29 item 7): well formed, new against the three earlier sets,
answerable from the corpus, and picked only by an explicit ``--set untouched``. Nothing here runs the
engine or retrieval: the gold is checked against the bench's cached passages, read-only, as
``research_quality --check-gold`` does.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bench import quality_metrics as qm
from bench import research_quality as rq
from bench.quality_corpora import CORPORA, QUESTION_SETS, CorpusSpec
from tests.bench.question_sets import assert_answerable_in_users_words, assert_well_formed, raw_questions

OTHER_KINDS = {"how-to": 3, "safety": 2, "comparison": 1, "concept": 1, "two-part": 1}
KINDS = {
    "python3-doc": {"how-to": 3, "safety": 2, "comparison": 2, "concept": 1, "definition": 1, "version": 1},
    "npm-docs": OTHER_KINDS,
    "zsh-doc": OTHER_KINDS,
    "pdf-manuals": OTHER_KINDS,
}
"""How many untouched questions of each type every corpus got: 10 for python3-doc, 8 for the others
(larger than the fresh sets, whose six questions per corpus were too noisy), in about the proportions
of the earlier sets."""


def earlier_questions(spec: CorpusSpec) -> list[dict]:
    return [q for name in QUESTION_SETS if name != "untouched" for q in raw_questions(spec.question_set(name))]


def test_every_corpus_has_an_untouched_set_of_the_planned_size_and_kinds() -> None:
    assert set(KINDS) == set(CORPORA)
    for name, spec in CORPORA.items():
        others = {spec.question_set(s) for s in QUESTION_SETS if s != "untouched"}
        assert spec.untouched not in others and spec.untouched.is_file(), name
        data = json.loads(spec.untouched.read_text())
        assert "untouched" in data["note"] and "2026-11-26" in data["note"], name
        assert f"--corpus {name} --set untouched --check-gold --check-questions" in data["note"], name
        questions = rq.load_questions(spec.untouched)  # the bench's own loader accepts it
        assert Counter(q.type for q in questions) == KINDS[name], name
        assert {q.type for q in questions} <= {q["type"] for q in earlier_questions(spec)}, name


def test_untouched_questions_are_well_formed() -> None:
    for spec in CORPORA.values():
        assert_well_formed(raw_questions(spec.untouched), most_gold=3)


def test_untouched_questions_are_new_across_all_four_sets() -> None:
    ids: list[str] = [
        q["id"] for spec in CORPORA.values() for name in QUESTION_SETS for q in raw_questions(spec.question_set(name))
    ]
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    for spec in CORPORA.values():
        asked = {qm.normalise(q["question"]) for q in earlier_questions(spec)}
        new = {qm.normalise(q["question"]) for q in raw_questions(spec.untouched)}
        assert len(new) == len(raw_questions(spec.untouched)) and not asked & new, spec.name


@pytest.mark.parametrize("name", list(KINDS))
def test_untouched_gold_is_in_the_corpus_and_questions_are_in_a_users_words(name: str) -> None:
    assert_answerable_in_users_words(CORPORA[name], CORPORA[name].untouched)


def test_set_picks_each_set_and_the_old_flags_are_aliases() -> None:
    spec = CORPORA["pdf-manuals"]
    assert rq.question_file(spec, rq.parse_args([])) == spec.questions
    expected = {"tuned": spec.questions, "heldout": spec.heldout, "fresh": spec.fresh, "untouched": spec.untouched}
    assert set(expected) == set(QUESTION_SETS)
    for name, path in expected.items():
        args = rq.parse_args(["--set", name])
        assert (args.set, rq.question_file(spec, args)) == (name, path)
        assert (args.heldout, args.fresh) == (name == "heldout", name == "fresh")
    assert rq.question_file(spec, rq.parse_args(["--heldout"])) == spec.heldout
    assert rq.question_file(spec, rq.parse_args(["--fresh"])) == spec.fresh
    assert [rq.set_kind(rq.parse_args(a)) for a in ([], ["--heldout"], ["--fresh"], ["--set", "untouched"])] == [
        "tuned",
        "held-out",
        "fresh",
        "untouched",
    ]
    other = Path("elsewhere.json")
    args = rq.parse_args(["--corpus", "pdf-manuals", "--set", "untouched", "--questions", str(other)])
    assert rq.question_file(spec, args) == other  # an explicit file wins, as before


@pytest.mark.parametrize(
    "argv",
    [
        ["--set", "untouched", "--heldout"],
        ["--set", "untouched", "--fresh"],
        ["--set", "tuned", "--heldout"],
        ["--heldout", "--fresh"],
    ],
)
def test_set_and_its_aliases_exclude_each_other(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        rq.parse_args(argv)
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_an_unknown_set_is_refused_with_the_allowed_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        rq.parse_args(["--set", "heldout2"])
    err = capsys.readouterr().err
    assert "invalid choice: 'heldout2'" in err and all(name in err for name in QUESTION_SETS)
    with pytest.raises(ValueError, match="allowed: tuned, heldout, fresh, untouched"):
        CORPORA["zsh-doc"].question_set("held-out")
