"""The engine must not know its bench: no bench question or gold phrase is written in deepr_mcp/,
nor in the engine's tests (tests/research/).

A quoted question or gold sentence (even in a docstring) is the first step to a rule that fits it;
examples in the package are invented instead. An engine test that passes on a bench question pins the
engine to that question: engine tests use small synthetic documents of their own. tests/bench is not
scanned (it reads the bench files by design).
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WINDOW = 30
"""Characters of a question or phrase that may not appear verbatim (shorter runs are common English)."""


def bench_texts() -> list[str]:
    files = [*ROOT.glob("bench/research_questions*.json"), *ROOT.glob("bench/research_questions/*.json")]
    texts: list[str] = []
    for file in files:
        for question in json.loads(file.read_text())["questions"]:
            texts += [question["question"], *question.get("gold", []), *question.get("warning", [])]
    return texts


def quoted_in(folder: Path) -> list[tuple[str, str]]:
    """(bench text, file) for every .py file under folder holding WINDOW characters of a bench text."""
    sources = {p: " ".join(p.read_text().lower().split()) for p in folder.rglob("*.py")}
    quoted = []
    for text in bench_texts():
        low = " ".join(text.lower().split())
        windows = {low[i : i + WINDOW] for i in range(max(1, len(low) - WINDOW + 1))}
        quoted += [(text, str(p.relative_to(ROOT))) for p, src in sources.items() if any(w in src for w in windows)]
    return quoted


def test_no_bench_question_or_gold_phrase_is_quoted_in_the_package() -> None:
    assert len(bench_texts()) > 200  # the four corpora's sets were found
    assert quoted_in(ROOT / "deepr_mcp") == []


def test_no_bench_question_or_gold_phrase_is_quoted_in_the_engine_tests() -> None:
    assert len(list((ROOT / "tests/research").rglob("test_*.py"))) > 20  # the engine tests were found
    assert quoted_in(ROOT / "tests/research") == []
