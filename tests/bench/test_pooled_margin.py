"""``bench.pooled_margin``: issue 29's margin pooled over several result files, per corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.pooled_margin import ALL, main, pool


def _result(corpus: str, rows: list[tuple[str, float, float, bool]]) -> dict:
    """One research_quality result: per question (id, search recall, hybrid recall, answerable)."""
    return {
        "corpora": {
            corpus: {
                "results": {
                    "search top-5": [{"id": i, "recall": s, "answerable": a} for i, s, _, a in rows],
                    "deepr hybrid": [{"id": i, "recall": h, "answerable": a} for i, _, h, a in rows],
                }
            }
        }
    }


def test_pools_answerable_questions_per_corpus_and_overall() -> None:
    kiln = _result("kiln-docs", [("k1", 0.5, 1.0, True), ("k2", 0.0, 0.5, True), ("k3", 0.0, 0.0, False)])
    glaze = _result("glaze-docs", [("g1", 1.0, 1.0, True)])
    pooled = pool([kiln, glaze])
    assert pooled["kiln-docs"].questions == 2  # the unanswerable one is left out
    assert pooled["kiln-docs"].ratio == pytest.approx(3.0)
    assert pooled["glaze-docs"].ratio == pytest.approx(1.0)
    assert pooled[ALL].questions == 3 and pooled[ALL].ratio == pytest.approx(2.5 / 1.5)


def test_a_question_run_in_one_mode_only_adds_nothing() -> None:
    one_mode = {"corpora": {"kiln-docs": {"results": {"deepr hybrid": [{"id": "k1", "recall": 1.0}]}}}}
    assert pool([one_mode]) == {}


def test_prints_a_table_and_says_what_is_wrong_with_a_bad_file(tmp_path: Path, capsys) -> None:
    good = tmp_path / "a.json"
    good.write_text(json.dumps(_result("kiln-docs", [("k1", 0.2, 0.4, True)])))
    assert main([str(good)]) == 0
    out = capsys.readouterr().out
    assert "| kiln-docs | 1 | 0.200 | 0.400 | 2.00x | yes |" in out and f"| {ALL} |" in out
    bad = tmp_path / "b.json"
    bad.write_text("{not json")
    assert main([str(bad)]) == 2
    assert "cannot read a results file" in capsys.readouterr().err
    empty = tmp_path / "c.json"
    empty.write_text("{}")
    assert main([str(empty)]) == 1
    assert "no question ran in both" in capsys.readouterr().err
