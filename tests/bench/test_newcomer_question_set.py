"""The fifth corpus, ``node-api``, and its only question set, ``newcomer`` (issue 29 item 7): a corpus the engine was
never tuned on, so the lead can measure at a session's end how the engine generalises. Its set is well formed, new
against every other set and answerable from the corpus; the bench skips, with a line saying so, a corpus without the
set asked for. Nothing here runs the engine or retrieval: the gold is checked against the bench's cached passages,
read-only, as ``research_quality --check-gold`` does.
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
from bench.quality_corpora import CORPORA, QUESTION_SETS, CorpusSpec
from tests.bench.question_sets import (
    assert_answerable_in_users_words,
    assert_well_formed,
    corpora_with,
    every_question,
    raw_questions,
)

NODE = CORPORA["node-api"]
KINDS = {"how-to": 7, "safety": 3, "comparison": 3, "concept": 2, "two-part": 2, "definition": 1}
"""18 questions, in about the proportions of the earlier sets (the helper's brief)."""


def test_the_five_corpora_and_the_nine_sets() -> None:
    assert list(CORPORA) == ["python3-doc", "npm-docs", "zsh-doc", "pdf-manuals", "node-api"]
    assert QUESTION_SETS[-1] == "newcomer" and len(QUESTION_SETS) == 9
    assert (NODE.generator, NODE.packages) == ("Node.js doc tool HTML", ("nodejs",))
    assert set(corpora_with("newcomer")) == {"node-api"}
    assert {name for name in QUESTION_SETS if NODE.has_set(name)} == {"newcomer"}
    with pytest.raises(ValueError, match="node-api has no 'tuned' question set; it has: newcomer"):
        NODE.question_set("tuned")


def test_the_newcomer_set_has_the_planned_size_and_kinds() -> None:
    path = NODE.question_set("newcomer")
    data = json.loads(path.read_text())
    assert "newcomer" in data["note"] and "2026-11-27" in data["note"]
    assert "--corpus node-api --set newcomer --check-gold --check-questions" in data["note"]
    questions = rq.load_questions(path)  # the bench's own loader accepts it
    assert Counter(q.type for q in questions) == KINDS
    kinds_used_before = {q["type"] for q in every_question() if not q["id"].startswith("node-")}
    assert set(KINDS) <= kinds_used_before


def test_newcomer_questions_are_well_formed_and_new() -> None:
    mine = raw_questions(NODE.question_set("newcomer"))
    assert_well_formed(mine, most_gold=3)
    asked = {qm.normalise(q["question"]) for q in every_question()} - {qm.normalise(q["question"]) for q in mine}
    assert len({qm.normalise(q["question"]) for q in mine}) == len(mine) and not asked & {
        qm.normalise(q["question"]) for q in mine
    }


def test_newcomer_gold_is_in_the_corpus_and_questions_are_in_a_users_words() -> None:
    assert_answerable_in_users_words(NODE, NODE.question_set("newcomer"))


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
        (["--set", "newcomer"], ["node-api"]),
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
    assert "node-api: skipped, it has no 'tuned' question set (it has: newcomer)" in capsys.readouterr().err


def test_the_newcomer_corpus_is_not_traced_or_tuned_on(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        evidence_stages.main(["--corpus", "node-api", "--set", "tuned"])
    assert exited.value.code == 2
    assert "no corpus chosen has the 'tuned' question set" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        retrieval_recall.main(["--corpus", "node-api"])
    assert exited.value.code == 2
    assert "invalid choice: 'node-api'" in capsys.readouterr().err
