"""Whole hybrid reports on every dev set, and two such runs compared question by question.

Run: ``.venv/bin/python -m bench.dev_runs run OUT [--set NAME ...] [--max-minutes N]``, then
``.venv/bin/python -m bench.dev_runs compare REF NEW``.

A change to research is tried on the dev sets first (``question_sets.DEV_SETS``: the sets used for decisions,
``rover``, and the sets run once and traced since; 617 questions over five corpora), against a run of the code
without it; a set written to be run once judges it only at a session's end. ``run`` writes one
``bench.research_quality`` JSON per set (``--modes "deepr hybrid"``, the local provider) into OUT, each set in its
own process. ``compare`` prints the figures the README gives for such a change (``research_quality.summarise``'s,
so they mean what that bench's tables mean) for both runs, overall and per corpus, and then, per figure, the
questions it moved each way: recall, the Answer holding and opening with gold, unsafe reports, ``none`` questions
admitted, uncovered halves named, covered halves called gaps, Gaps in reports that found gold, Gaps lines
contradicting their report, and how many reports changed at all. Only questions in both runs are compared.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bench.question_sets import DEV_SETS
from bench.research_quality import summarise

MODE = "deepr hybrid"
Result = dict[str, Any]
"""One question's row of a ``bench.research_quality`` JSON (``corpora.<corpus>.results.<mode>[i]``)."""


def run(out: Path, sets: Iterable[str], max_minutes: float) -> int:
    """Each set's hybrid reports into ``out/SET.json``; the number of sets whose run failed."""
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for name in sets:
        command = [sys.executable, "-m", "bench.research_quality", "--set", name, "--modes", MODE]
        command += ["--max-minutes", str(max_minutes), "--json", str(out / f"{name}.json")]
        with (out / f"{name}.log").open("w") as log:
            done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, check=False)
        failed += done.returncode != 0
        print(
            f"{name}: {'done' if done.returncode == 0 else f'failed ({done.returncode}), see {name}.log'}", flush=True
        )
    return failed


def load(folder: Path) -> dict[tuple[str, str], Result]:
    """Every hybrid result of the JSONs in ``folder``, by (corpus, question id), with its corpus set on it."""
    out: dict[tuple[str, str], Result] = {}
    for path in sorted(folder.glob("*.json")):
        for corpus, found in json.loads(path.read_text())["corpora"].items():
            for result in found.get("results", {}).get(MODE, []):
                out[(corpus, result["id"])] = {**result, "corpus": corpus}
    return out


def _count(key: str) -> Callable[[Result], float]:
    return lambda r: float(r.get(key) or 0)


MOVED: tuple[tuple[str, Callable[[Result], float]], ...] = (
    ("recall", lambda r: r["recall"] if r["answerable"] else 0.0),
    ("Answer holds gold", lambda r: float(bool(r["answerable"] and r.get("answer_gold")))),
    ("Answer opens with gold", lambda r: float(bool(r["answerable"] and r.get("answer_opens")))),
    ("unsafe", _count("unsafe")),
    ("none admitted", _count("none_admitted")),
    ("uncovered halves named", _count("uncovered_named")),
    ("covered halves called gaps", _count("halves_gapped")),
    ("Gaps when gold found", _count("gaps_when_found")),
    ("Gaps contradicting", lambda r: float(bool(r.get("gaps_contradicting")))),
)
"""Each figure a question can move, and that question's value of it."""

TABLE: tuple[tuple[str, str, str | None], ...] = (
    ("recall", "recall", None),
    ("Answer holds gold", "answer_gold", None),
    ("Answer opens with gold", "answer_opens", None),
    ("unsafe", "unsafe_n", "safety_n"),
    ("none admitted", "none_admitted", "none_n"),
    ("uncovered halves named", "uncovered_named", "uncovered_n"),
    ("covered halves called gaps", "halves_gapped", "covered_halves"),
    ("Gaps when gold found", "gapped_when_found", "found_n"),
    ("Gaps contradicting", "gaps_contradicting", None),
)
"""Each figure of the table: its name, ``research_quality.summarise``'s key for it and for what it is out of (None:
a share, shown to three places, or a count)."""


def shown(figures: dict[str, float], key: str, out_of: str | None) -> str:
    """One figure of ``summarise``'s: "k of n", a share, or a count; n/a where nothing could give it."""
    value = figures[key]
    if math.isnan(value):
        return "n/a"
    if out_of is not None:
        return f"{value:g} of {figures[out_of]:g}"
    return f"{value:.3f}" if key in SHARES else f"{value:g}"


SHARES = {"recall", "answer_gold", "answer_opens"}
"""The figures ``summarise`` gives as a mean over the questions, not a count."""


def compare(ref: dict[tuple[str, str], Result], new: dict[tuple[str, str], Result]) -> list[str]:
    """The lines ``compare`` prints: a table of every figure (both runs, overall and per corpus), then per figure
    the questions it moved up and down."""
    keys = [k for k in new if k in ref]
    before, after = [ref[k] for k in keys], [new[k] for k in keys]
    corpora = sorted({corpus for corpus, _ in keys})
    lines = [
        f"{len(keys)} questions in both runs; reports that changed: "
        f"{sum(ref[k].get('output') != new[k].get('output') for k in keys)}",
        "",
    ]
    lines += ["| figure | ref | new | " + " | ".join(f"{c} ref / new" for c in corpora) + " |"]
    lines += ["|---|---:|---:|" + "---:|" * len(corpora)]
    overall = [summarise(rows) for rows in (before, after)]
    each = {c: [summarise([r for r in rows if r["corpus"] == c]) for rows in (before, after)] for c in corpora}
    for name, key, out_of in TABLE:
        cells = [shown(figures, key, out_of) for figures in overall]
        cells += [" / ".join(shown(figures, key, out_of) for figures in each[c]) for c in corpora]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    for name, value in MOVED:
        up = [k[1] for k in keys if value(new[k]) > value(ref[k]) + 1e-9]
        down = [k[1] for k in keys if value(new[k]) < value(ref[k]) - 1e-9]
        if up or down:
            lines.append(f"{name}: +{len(up)} {up[:8]} -{len(down)} {down[:8]}")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.dev_runs", description=__doc__.split("\n\n")[0])
    commands = p.add_subparsers(dest="command", required=True)
    running = commands.add_parser("run", help="hybrid reports on the dev sets, one JSON per set")
    running.add_argument("out", type=Path, help="the folder for SET.json and SET.log")
    running.add_argument("--set", action="append", choices=DEV_SETS, help="a dev set (repeatable; default all)")
    running.add_argument("--max-minutes", type=float, default=30.0, help="per set (default 30)")
    comparing = commands.add_parser("compare", help="two runs' figures side by side, and the questions moved")
    comparing.add_argument("ref", type=Path)
    comparing.add_argument("new", type=Path)
    args = p.parse_args(argv)
    if args.command == "run":
        return 1 if run(args.out, args.set or DEV_SETS, args.max_minutes) else 0
    ref, new = load(args.ref), load(args.new)
    if not ref or not new:
        p.error(f"no {MODE!r} results in {args.ref if not ref else args.new} (a folder of research_quality JSONs)")
    print("\n".join(compare(ref, new)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
