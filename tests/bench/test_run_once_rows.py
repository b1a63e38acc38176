"""``bench.run_once_rows``: a run's rows kept without their texts, and the margin pooled over the kept sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import run_once_rows
from bench.question_sets import RAN_ONCE
from bench.run_once_rows import compact, compare, interval, keep, paired_recalls, pooled


def row(recall: float, **extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "q",
        "question": "How hot does the kiln get?",
        "output": "# Research report ...",
        "seconds": 0.1,
        "answerable": True,
        "hit": recall > 0,
        "recall": recall,
        "unsafe": False,
        "has_warning": False,
        "answer_gold": None,
        "answer_opens": None,
        "gaps_contradicting": [],
        "none": False,
        "none_admitted": False,
        "claims": 0,
        "duplicate_claims": [],
        "furniture_claims": [],
        "words": 3,
        "error": None,
    }
    return base | extra


def run(name: str, hybrid: list[float], search: list[float]) -> dict[str, object]:
    results = {
        "search top-5": [row(r, id=f"q{i}") for i, r in enumerate(search)],
        "deepr lexical": [row(0.0)],
        "deepr hybrid": [row(r, id=f"q{i}", answer_gold=True) for i, r in enumerate(hybrid)],
    }
    return {"set": name, "corpora": {"kilns": {"results": results, "version": "1", "db": "/somewhere"}}}


def test_a_kept_run_holds_the_two_modes_of_the_margin_without_any_text(tmp_path: Path) -> None:
    source = tmp_path / "run.json"
    source.write_text(json.dumps(run("glazer", [1.0, 0.5], [0.5, 0.5])))
    kept = keep(source, tmp_path / "kept")
    assert kept == tmp_path / "kept" / "glazer.json"
    payload = json.loads(kept.read_text())
    assert set(payload["corpora"]["kilns"]["results"]) == {"search top-5", "deepr hybrid"}
    rows = payload["corpora"]["kilns"]["results"]["deepr hybrid"]
    assert rows and all("output" not in r and "question" not in r for r in rows)
    assert compact(json.loads(source.read_text())) == payload


def test_the_margin_is_pooled_over_every_row_of_every_kept_set(tmp_path: Path) -> None:
    for name, hybrid, search in (("a", [1.0, 0.0], [0.5, 0.0]), ("b", [0.5], [0.5])):
        (tmp_path / f"{name}.json").write_text(json.dumps(compact(run(name, hybrid, search))))
    hybrid, search, answerable = pooled(sorted(tmp_path.glob("*.json")))["kilns"]
    assert answerable == 3
    assert hybrid == pytest.approx(1.5 / 3) and search == pytest.approx(1.0 / 3)


def test_pooled_prints_a_ratio_per_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps(compact(run("a", [0.6], [0.4]))))
    assert run_once_rows.main(["pooled", str(path)]) == 0
    assert "| kilns | 1 | 0.600 | 0.400 | 1.50x | 1.50x-1.50x | 100% |" in capsys.readouterr().out


def test_the_pooled_ratio_has_an_interval_from_resampling_its_questions(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps(compact(run("a", [1.0, 0.0, 0.5, 0.5], [0.5, 0.5, 0.0, 0.5]))))
    pairs = paired_recalls([path])["kilns"]
    assert pairs == [(1.0, 0.5), (0.0, 0.5), (0.5, 0.0), (0.5, 0.5)]  # each question's two recalls together
    low, high, share = interval(pairs)
    assert low < 2.0 / 1.5 < high  # the pooled ratio lies inside; four questions leave it wide
    assert 0.0 < share < 1.0
    assert interval(pairs) == (low, high, share)  # seeded: the same rows print the same interval
    assert interval([(0.5, 0.25)] * 5) == (2.0, 2.0, 1.0)


def test_every_kept_file_is_a_set_run_once() -> None:
    kept = {p.stem for p in run_once_rows.FOLDER.glob("*.json")}
    assert kept <= set(RAN_ONCE)


def test_compare_puts_the_rule_figures_of_one_set_run_on_several_codes_side_by_side(tmp_path: Path) -> None:
    before, after = tmp_path / "start.json", tmp_path / "end.json"
    before.write_text(json.dumps(run("glazer", [1.0, 0.0], [0.5, 0.5])))
    changed = run("glazer", [1.0, 0.5], [0.5, 0.5])
    changed["corpora"]["kilns"]["results"]["deepr hybrid"][1]["output"] = "# Research report: another"  # type: ignore[index]
    after.write_text(json.dumps(changed))
    table = compare([before, after])
    assert "| deepr hybrid | recall | 0.500 / 0.750 |" in table
    assert "| deepr hybrid | Answer holds gold | 2 of 2 / 2 of 2 |" in table
    assert "| kilns | 0.50 / 0.50 (1.00x) || 0.75 / 0.50 (1.50x) |" in table
    assert "start -> end, deepr hybrid: 1 reports changed q1" in table


def test_compare_applies_the_rule_and_says_whether_the_margin_is_met(tmp_path: Path) -> None:
    before, worse, better = (tmp_path / f"{n}.json" for n in ("start", "worse", "better"))
    before.write_text(json.dumps(run("glazer", [1.0, 0.5], [0.5, 0.5])))
    worse.write_text(json.dumps(run("glazer", [1.0, 0.0], [0.5, 0.5])))
    better.write_text(json.dumps(run("glazer", [1.0, 1.0], [0.5, 0.5])))
    assert "start -> worse, the rule: revert: recall fell" in compare([before, worse])
    table = compare([before, better])
    assert "start -> better, the rule: keep" in table
    assert "issue 29's margin (1.3x) on better: met on every corpus" in table
    assert "on worse: not met (kilns 0.50 / 0.50)" in compare([before, worse])
