"""``bench.dev_runs``: two dev runs compared figure by figure and question by question, and the sets it runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import dev_runs
from bench.question_sets import NEVER_TRACED


def result(qid: str, **values: Any) -> dict[str, Any]:
    row = {
        "id": qid, "answerable": True, "recall": 0.0, "answer_gold": False, "answer_opens": False, "unsafe": False,
        "has_warning": False, "none": False, "none_admitted": False, "uncovered": 0, "uncovered_named": 0,
        "covered_halves": 0, "halves_gapped": 0, "gaps_when_found": False, "gaps_contradicting": [], "output": "",
        "hit": False, "claims": 1, "duplicate_claims": [], "furniture_claims": [], "seconds": 0.5, "words": 10,
        "error": None,
    }  # fmt: skip
    return {**row, **values}


def write_run(folder: Path, rows: dict[str, list[dict[str, Any]]]) -> Path:
    folder.mkdir()
    corpora = {corpus: {"results": {"deepr hybrid": found}} for corpus, found in rows.items()}
    (folder / "kilns.json").write_text(json.dumps({"set": "kilns", "corpora": corpora}))
    return folder


def test_two_runs_are_compared_overall_per_corpus_and_question_by_question(tmp_path: Path) -> None:
    ref = write_run(
        tmp_path / "ref",
        {
            "kiln-docs": [
                result("k-cool", recall=0.5, answer_gold=True, output="a"),
                result("k-none", answerable=False, none=True, answer_gold=None, answer_opens=None, output="b"),
            ],
            "glaze-docs": [result("g-halves", covered_halves=2, halves_gapped=1, output="c")],
        },
    )
    new = write_run(
        tmp_path / "new",
        {
            "kiln-docs": [
                result("k-cool", recall=1.0, answer_gold=True, output="a2"),
                result("k-none", answerable=False, none=True, none_admitted=True, answer_gold=None, output="b"),
                result("k-only-new", recall=1.0),
            ],
            "glaze-docs": [result("g-halves", covered_halves=2, output="c")],
        },
    )
    lines = dev_runs.compare(dev_runs.load(ref), dev_runs.load(new))
    assert lines[0] == "3 questions in both runs; reports that changed: 1"  # k-only-new is in one run only
    table = {line.split(" | ")[0].strip("| "): line for line in lines if line.startswith("| ")}
    assert table["recall"] == "| recall | 0.250 | 0.500 | 0.000 / 0.000 | 0.500 / 1.000 |"
    assert table["none admitted"] == "| none admitted | 0 of 1 | 1 of 1 | 0 of 0 / 0 of 0 | 0 of 1 / 1 of 1 |"
    assert table["covered halves called gaps"].startswith("| covered halves called gaps | 1 of 2 | 0 of 2 |")
    assert table["Answer holds gold"].startswith("| Answer holds gold | 0.500 | 0.500 |")  # 1 of 2 answerable
    assert "recall: +1 ['k-cool'] -0 []" in lines
    assert "covered halves called gaps: +0 [] -1 ['g-halves']" in lines
    assert not any(line.startswith("unsafe:") for line in lines)  # a figure nothing moved lists no questions


@pytest.mark.parametrize("refused", NEVER_TRACED)
def test_a_set_written_to_be_run_once_is_refused(refused: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        dev_runs.main(["run", "out", "--set", refused])
    assert exited.value.code == 2
    assert f"invalid choice: '{refused}'" in capsys.readouterr().err


def test_a_folder_without_hybrid_results_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = write_run(tmp_path / "ref", {"kiln-docs": [result("k-cool")]})
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit) as exited:
        dev_runs.main(["compare", str(ref), str(tmp_path / "empty")])
    assert exited.value.code == 2
    assert "no 'deepr hybrid' results in" in capsys.readouterr().err
