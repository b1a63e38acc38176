"""The ninth question set, ``newcomer`` (issue 29 item 7): first the only set of the fifth corpus, ``node-api``, a
corpus the engine was never tuned on; then, in the seventh session, a set of each of the first four corpora too, written
before any run of it, so the lead can measure that session's final engine on questions nobody has run. Each file is
well formed, new against every other set and answerable from the corpus; the bench skips, with a line saying so, a
corpus without the set asked for (a file still being written by another helper counts as not there yet). Nothing
here runs the engine or retrieval: the gold is checked against the bench's cached passages, read-only, as
``research_quality --check-gold`` does.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bench import evidence_stages, retrieval_recall
from bench import quality_corpora as qc
from bench import quality_metrics as qm
from bench import research_quality as rq
from bench.quality_corpora import CORPORA, NODE_API_SETS, QUESTION_SETS, CorpusSpec
from tests.bench.question_sets import (
    LATE_KINDS,
    assert_answerable_in_users_words,
    assert_well_formed,
    corpora_with,
    every_question,
    raw_questions,
)

NODE = CORPORA["node-api"]
KINDS = {
    **LATE_KINDS,
    "node-api": {"how-to": 7, "safety": 3, "comparison": 3, "concept": 2, "two-part": 2, "definition": 1},
}
"""Each corpus's newcomer set: 18 questions for node-api, and for the first four the sizes and kinds of their late
sets (10 for python3-doc, 8 for the others), in about the proportions of the earlier sets (the helpers' briefs)."""
WRITTEN = [name for name, spec in CORPORA.items() if spec.has_set("newcomer")]
"""The corpora whose newcomer file is in the checkout (zsh-doc's and pdf-manuals' are written by another helper at
the same time as python3-doc's and npm-docs'): the tests below cover each file once it lands."""


def test_the_five_corpora_and_the_newcomer_set() -> None:
    assert list(CORPORA) == ["python3-doc", "npm-docs", "zsh-doc", "pdf-manuals", "node-api"]
    assert QUESTION_SETS[8] == "newcomer"  # outsider ... came after
    assert (NODE.generator, NODE.packages) == ("Node.js doc tool HTML", ("nodejs",))
    assert all(spec.question_files["newcomer"].name.endswith("newcomer.json") for spec in CORPORA.values())
    assert {"python3-doc", "npm-docs", "node-api"} <= set(corpora_with("newcomer")) == set(WRITTEN)
    assert NODE_API_SETS == QUESTION_SETS[8:] == tuple(NODE.question_files)  # node-api registers newcomer and later
    assert {name for name in QUESTION_SETS if NODE.has_set(name)} <= set(NODE_API_SETS)
    with pytest.raises(ValueError, match="node-api has no 'tuned' question set; it has: newcomer"):
        NODE.question_set("tuned")


@pytest.mark.parametrize("name", WRITTEN)
def test_the_newcomer_set_has_the_planned_size_and_kinds(name: str) -> None:
    path = CORPORA[name].question_set("newcomer")
    data = json.loads(path.read_text())
    assert "newcomer" in data["note"] and "2026-11-27" in data["note"]
    assert f"--corpus {name} --set newcomer --check-gold --check-questions" in data["note"]
    questions = rq.load_questions(path)  # the bench's own loader accepts it
    assert Counter(q.type for q in questions) == KINDS[name]
    kinds_used_before = {q["type"] for q in every_question() if q not in raw_questions(path)}
    assert set(KINDS[name]) <= kinds_used_before


@pytest.mark.parametrize("name", WRITTEN)
def test_newcomer_questions_are_well_formed_and_new(name: str) -> None:
    mine = raw_questions(CORPORA[name].question_set("newcomer"))
    assert_well_formed(mine, most_gold=3)
    asked = {qm.normalise(q["question"]) for q in every_question()} - {qm.normalise(q["question"]) for q in mine}
    assert len({qm.normalise(q["question"]) for q in mine}) == len(mine) and not asked & {
        qm.normalise(q["question"]) for q in mine
    }


@pytest.mark.parametrize("name", WRITTEN)
def test_newcomer_gold_is_in_the_corpus_and_questions_are_in_a_users_words(name: str) -> None:
    assert_answerable_in_users_words(CORPORA[name], CORPORA[name].question_set("newcomer"))


def test_the_corpus_is_the_html_pages_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The package's Markdown and JSON twins, its assets and the all-in-one page stay out of the cached copy."""
    api = tmp_path / "api"
    (api / "assets").mkdir(parents=True)
    for name in ("fs.html", "fs.md", "fs.json.gz", "all.html", "all.json.gz", "index.html", "index.json"):
        (api / name).write_text(f"<p>{name}</p>")
    (api / "assets" / "style.css").write_text("p {}")
    monkeypatch.setattr(qc, "NODE_API", api)
    monkeypatch.setattr(qc, "SOURCES", tmp_path / "sources")
    spec = CorpusSpec("node-api", NODE.generator, NODE.packages, NODE.question_files, qc.node_api, lambda _: "20.0-1")
    folder = spec.locate(spec)
    assert folder == tmp_path / "sources" / "node-api-20.0-1"
    assert sorted(p.name for p in folder.iterdir()) == ["fs.html", "index.html"]
    assert (folder / "fs.html").read_text() == "<p>fs.html</p>"
    (api / "http.html").write_text("<p>http</p>")  # a new page: the copy is made again
    assert sorted(p.name for p in spec.locate(spec).iterdir()) == ["fs.html", "http.html", "index.html"]
    assert sorted(p.name for p in (tmp_path / "sources").iterdir()) == ["node-api-20.0-1"]  # no half-built copy left


@pytest.mark.parametrize(
    ("argv", "kept"),
    [
        (["--set", "newcomer"], WRITTEN),
        ([], ["python3-doc", "npm-docs", "zsh-doc", "pdf-manuals"]),
        (["--set", "pristine"], ["python3-doc", "npm-docs", "zsh-doc", "pdf-manuals"]),
    ],
)
def test_a_corpus_without_the_set_is_skipped_with_a_line_saying_so(
    argv: list[str], kept: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = rq.parse_args(argv)
    assert [spec.name for spec in rq.with_the_set(list(CORPORA.values()), args)] == kept
    skipped = [line for line in capsys.readouterr().err.splitlines() if "skipped" in line]
    assert len(skipped) == len(CORPORA) - len(kept)
    assert all(f"has no {args.set!r} question set" in line for line in skipped)


def test_an_explicit_question_file_keeps_the_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    args = rq.parse_args(["--corpus", "node-api", "--questions", "elsewhere.json"])
    assert rq.with_the_set([NODE], args) == [NODE]
    assert capsys.readouterr().err == ""


def test_a_corpus_with_no_file_for_the_set_alone_is_refused_before_any_ingest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit, match="no corpus chosen has the 'tuned' question set"):
        rq.main(["--corpus", "node-api", "--check-gold"])
    assert "node-api: skipped, it has no 'tuned' question set (it has: newcomer" in capsys.readouterr().err


def test_the_newcomer_corpus_is_not_traced_or_tuned_on(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        evidence_stages.main(["--corpus", "node-api", "--set", "tuned"])
    assert exited.value.code == 2
    assert "no corpus chosen has the 'tuned' question set" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        retrieval_recall.main(["--corpus", "node-api"])
    assert exited.value.code == 2
    assert "invalid choice: 'node-api'" in capsys.readouterr().err
