"""The engine must not know its bench: no bench question or gold phrase is written in deepr_mcp/.

A quoted question or gold sentence (even in a docstring) is the first step to a rule that fits it;
examples in the package are invented instead.
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


def test_no_bench_question_or_gold_phrase_is_quoted_in_the_package() -> None:
    package = {p: " ".join(p.read_text().lower().split()) for p in (ROOT / "deepr_mcp").rglob("*.py")}
    quoted = []
    for text in bench_texts():
        low = " ".join(text.lower().split())
        windows = {low[i : i + WINDOW] for i in range(max(1, len(low) - WINDOW + 1))}
        quoted += [(text, str(p.relative_to(ROOT))) for p, src in package.items() if any(w in src for w in windows)]
    assert len(bench_texts()) > 200  # the four corpora's sets were found
    assert quoted == []
