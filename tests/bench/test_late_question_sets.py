"""The late question sets, untouched, unseen, blind, sealed and pristine (issue 29 item 7): well formed, new
against every other set, answerable from the corpus, and picked only by an explicit ``--set``. Nothing here runs the
engine or retrieval: the gold is checked against the bench's cached passages, read-only, as
``research_quality --check-gold`` does. The sets from ``newcomer`` on are tested in ``test_newcomer_question_set.py``,
``test_gap_question_sets.py`` and ``test_rover_question_set.py`` (outsider's new kind and metrics in
``test_outsider_question_set.py``); here they are only names every first corpus registers, and a set registered
before its file is written is one the corpus does not have yet.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bench import quality_metrics as qm
from bench import research_quality as rq
from bench.quality_corpora import CORPORA, QUESTION_DIR, QUESTION_SETS, CorpusSpec
from tests.bench.question_sets import (
    LATE_KINDS,
    assert_answerable_in_users_words,
    assert_well_formed,
    corpora_with,
    every_question,
    raw_questions,
)

KINDS = LATE_KINDS
LATE_SETS = ("untouched", "unseen", "blind", "sealed", "pristine")


def other_questions(spec: CorpusSpec, late: str) -> list[dict]:
    return [q for name in spec.sets() if name != late for q in raw_questions(spec.question_set(name))]


@pytest.mark.parametrize("late", LATE_SETS)
def test_every_first_corpus_has_the_late_set_of_the_planned_size_and_kinds(late: str) -> None:
    assert set(KINDS) == set(corpora_with(late)) == set(CORPORA) - {"node-api"}
    for name, spec in corpora_with(late).items():
        assert tuple(spec.question_files) == QUESTION_SETS, name  # every set, in order
        path = spec.question_set(late)
        others = {p for s, p in spec.question_files.items() if s != late}
        assert path not in others and path.is_file(), name
        data = json.loads(path.read_text())
        assert late in data["note"] and "2026-11-26" in data["note"], name
        assert f"--corpus {name} --set {late} --check-gold --check-questions" in data["note"], name
        questions = rq.load_questions(path)  # the bench's own loader accepts it
        assert Counter(q.type for q in questions) == KINDS[name], name
        assert {q.type for q in questions} <= {q["type"] for q in other_questions(spec, late)}, name


@pytest.mark.parametrize("late", LATE_SETS)
def test_late_questions_are_well_formed(late: str) -> None:
    for spec in corpora_with(late).values():
        assert_well_formed(raw_questions(spec.question_set(late)), most_gold=3)


def test_question_ids_are_unique_across_all_sets() -> None:
    ids = [q["id"] for q in every_question()]
    assert len(ids) > 18 * len(QUESTION_SETS)  # every set of every corpus was read
    assert [i for i, n in Counter(ids).items() if n > 1] == []


@pytest.mark.parametrize("late", LATE_SETS)
def test_late_questions_are_new_across_all_sets(late: str) -> None:
    for spec in corpora_with(late).values():
        asked = {qm.normalise(q["question"]) for q in other_questions(spec, late)}
        mine = raw_questions(spec.question_set(late))
        new = {qm.normalise(q["question"]) for q in mine}
        assert len(new) == len(mine) and not asked & new, spec.name


@pytest.mark.parametrize("late", LATE_SETS)
@pytest.mark.parametrize("name", list(KINDS))
def test_late_gold_is_in_the_corpus_and_questions_are_in_a_users_words(name: str, late: str) -> None:
    assert_answerable_in_users_words(CORPORA[name], CORPORA[name].question_set(late))


def test_set_picks_each_set_and_the_old_flags_are_aliases() -> None:
    spec = CORPORA["npm-docs"]
    questions = QUESTION_DIR
    assert rq.question_file(spec, rq.parse_args([])) == questions / "npm-docs.json"
    expected = {
        name: questions / ("npm-docs.json" if name == "tuned" else f"npm-docs-{name}.json") for name in QUESTION_SETS
    }
    assert expected["heldout"] == questions / "npm-docs-heldout.json"
    assert tuple(expected) == QUESTION_SETS and spec.question_files == expected
    for name, path in expected.items():
        args = rq.parse_args(["--set", name])
        if spec.has_set(name):  # wayfarer's file is written by another helper in parallel
            assert (args.set, rq.question_file(spec, args)) == (name, path)
        assert (args.heldout, args.fresh) == (name == "heldout", name == "fresh")
    assert rq.question_file(spec, rq.parse_args(["--heldout"])) == expected["heldout"]
    assert rq.question_file(spec, rq.parse_args(["--fresh"])) == expected["fresh"]
    assert [rq.set_kind(rq.parse_args(a)) for a in ([], ["--heldout"], ["--fresh"], ["--set", "untouched"])] == [
        "tuned",
        "held-out",
        "fresh",
        "untouched",
    ]
    other = Path("elsewhere.json")
    args = rq.parse_args(["--corpus", "npm-docs", "--set", "untouched", "--questions", str(other)])
    assert rq.question_file(spec, args) == other  # an explicit file wins, as before


def test_a_set_registered_before_its_file_is_written_is_one_the_corpus_lacks(tmp_path: Path) -> None:
    """Helpers write the corpora's wayfarer files at once (as the newcomer, outsider, stranger and visitor ones were):
    until a file lands, its corpus is skipped."""
    real = CORPORA["pdf-manuals"]
    files = {**real.question_files, "wayfarer": tmp_path / "pdf-manuals-wayfarer.json"}
    spec = CorpusSpec(real.name, real.generator, real.packages, files, real.locate, real.version)
    before = list(QUESTION_SETS[: QUESTION_SETS.index("wayfarer")])  # tuned ... visitor
    later = list(QUESTION_SETS[QUESTION_SETS.index("wayfarer") + 1 :])  # rover, pilgrim ... (test_question_set_table)
    assert not spec.has_set("wayfarer") and spec.sets() == [*before, *later]
    with pytest.raises(ValueError, match="pdf-manuals has no 'wayfarer' question set; it has: tuned, heldout"):
        rq.question_file(spec, rq.parse_args(["--set", "wayfarer"]))
    (tmp_path / "pdf-manuals-wayfarer.json").write_text('{"questions": []}')
    assert spec.has_set("wayfarer") and spec.sets() == [*before, "wayfarer", *later]
    assert rq.question_file(spec, rq.parse_args(["--set", "wayfarer"])) == tmp_path / "pdf-manuals-wayfarer.json"


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
    allowed = f"allowed: {', '.join(QUESTION_SETS)}$"  # every set, in order
    with pytest.raises(ValueError, match=allowed):
        CORPORA["zsh-doc"].question_set("held-out")
