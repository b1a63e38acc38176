"""Issue 29's margin over many question sets at once: the hybrid report's recall against top-5 search's, per corpus.

One set holds six or eight answerable questions a corpus, so one question moves a corpus's ratio by a sixth:
pooling the sets written the same way (the dev sets, or the run-once sets after their runs) says more.

Run: ``.venv/bin/python -m bench.pooled_margin A.json B.json ...`` on the files ``bench.research_quality --json``
wrote (each with the modes ``search top-5`` and ``deepr hybrid``: ``--modes "search top-5,deepr hybrid"``).
Prints one row per corpus and one for all, the questions pooled, both recalls and their ratio against
``research_quality.TARGET_RECALL_VS_BASELINE``. Reads files only; it runs no research.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.research_quality import BASELINE, TARGET_RECALL_VS_BASELINE

REPORT = "deepr hybrid"
ALL = "all corpora"


@dataclass
class Pooled:
    """Recall summed over the answerable questions both modes ran."""

    questions: int = 0
    baseline: float = 0.0
    report: float = 0.0

    def add(self, baseline: float, report: float) -> None:
        self.questions += 1
        self.baseline += baseline
        self.report += report

    @property
    def ratio(self) -> float:
        return self.report / self.baseline if self.baseline else float("inf")


def pool(results: list[dict[str, Any]]) -> dict[str, Pooled]:
    """Per corpus (and ``ALL``), the answerable questions that ran in both modes; a question missing from
    either is left out, so a set run in one mode only adds nothing."""
    pooled: dict[str, Pooled] = {}
    for result in results:
        for corpus, held in result.get("corpora", {}).items():
            runs = held.get("results", {})
            baseline = {r["id"]: r for r in runs.get(BASELINE, [])}
            for row in runs.get(REPORT, []):
                other = baseline.get(row["id"])
                if other is None or not row.get("answerable", True):
                    continue
                for key in (corpus, ALL):
                    pooled.setdefault(key, Pooled()).add(other["recall"], row["recall"])
    return pooled


def table(pooled: dict[str, Pooled]) -> str:
    """A Markdown table, corpora by name, all corpora last."""
    lines = [
        f"| corpus | questions | {BASELINE} recall | hybrid recall | ratio | {TARGET_RECALL_VS_BASELINE}x met |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name in [*sorted(k for k in pooled if k != ALL), ALL]:
        if name not in pooled:
            continue
        p = pooled[name]
        met = "yes" if p.ratio >= TARGET_RECALL_VS_BASELINE else "no"
        lines.append(
            f"| {name} | {p.questions} | {p.baseline / p.questions:.3f} | {p.report / p.questions:.3f} "
            f"| {p.ratio:.2f}x | {met} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pooled_margin", description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, metavar="JSON", help="research_quality --json outputs")
    args = parser.parse_args(argv)
    try:
        results = [json.loads(path.read_text()) for path in args.files]
    except (OSError, ValueError) as exc:
        print(f"pooled_margin: cannot read a results file: {exc}", file=sys.stderr)
        return 2
    pooled = pool(results)
    if not pooled:
        print(f"pooled_margin: no question ran in both '{BASELINE}' and '{REPORT}'", file=sys.stderr)
        return 1
    print(table(pooled))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
