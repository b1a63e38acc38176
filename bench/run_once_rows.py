"""The rows of each run-once set's end run, kept in the repository, and issue 29's margin pooled over them.

Run: ``.venv/bin/python -m bench.run_once_rows keep RUN.json`` (after ``research_quality --set S --json
RUN.json``), then ``.venv/bin/python -m bench.run_once_rows pooled`` (hybrid recall against top-5 search per
corpus over every kept set, as ``research_quality --summed`` prints it). ``compare A.json B.json ...`` prints the
figures a session's keep/revert rule reads, for one set's runs on several codes side by side, the reports each
mode changed between one run and the next, the rule's verdict on each step and whether the last run meets issue
29's margin.

Issue 29's margin is judged per set and pooled over every held-out set run so far. The pooled figure used to
be summed from the ``--json`` files of earlier sessions' runs, kept in scratch folders that a new machine does
not have: the twenty-sixth session found them gone. So the rows that the margin needs (top-5 search and the
hybrid report, every figure ``research_quality.summarise`` reads, without the report text) are kept here, one
file per set, ``bench/run_once/<set>.json``, in the shape ``--summed`` reads.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

from bench.research_quality import MODES, summarise, summed

FOLDER = Path(__file__).resolve().parent / "run_once"
MARGIN = 1.3
"""Issue 29's margin: the hybrid report's recall at least 1.3x top-5 search's, on every corpus."""
DRAWS = 2000
"""Bootstrap resamples of the questions behind each pooled ratio's interval."""
KEPT_MODES = ("search top-5", "deepr hybrid")
"""The margin is the hybrid report's recall against top-5 search's."""
DROPPED = ("output", "question")
"""The report's text and the question's: the question lives in its set's file, the report is rerun at will."""


def compact(payload: dict[str, Any]) -> dict[str, Any]:
    """A ``research_quality --json`` payload with only the kept modes' rows, each without its texts."""
    corpora = {
        name: {
            "results": {
                mode: [{k: v for k, v in row.items() if k not in DROPPED} for row in corpus["results"].get(mode, [])]
                for mode in KEPT_MODES
            },
            "version": corpus.get("version"),
        }
        for name, corpus in payload["corpora"].items()
    }
    return {"set": payload["set"], "corpora": corpora}


def keep(run: Path, folder: Path = FOLDER) -> Path:
    """Write ``run``'s compact rows to ``folder/<set>.json``."""
    payload = compact(json.loads(run.read_text()))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{payload['set']}.json"
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    return path


def pooled(paths: list[Path]) -> dict[str, tuple[float, float, int]]:
    """Per corpus: hybrid recall, top-5 search recall and answerable questions, over every row of ``paths``
    (``research_quality.summed``: the kept files are in its shape)."""
    out = {}
    for name, by in sorted(summed(paths).items()):
        hybrid, search = by.get("deepr hybrid"), by.get(MODES[0])
        if hybrid and search:
            out[name] = (hybrid["recall"], search["recall"], int(hybrid["answerable_n"]))
    return out


def paired_recalls(paths: list[Path]) -> dict[str, list[tuple[float, float]]]:
    """Per corpus, each answerable question's (hybrid recall, top-5 search recall), over every file of ``paths``."""
    out: dict[str, list[tuple[float, float]]] = {}
    for path in paths:
        for name, corpus in json.loads(path.read_text())["corpora"].items():
            search = {row["id"]: row for row in corpus["results"].get(MODES[0], [])}
            for row in corpus["results"].get("deepr hybrid", []):
                if row["answerable"] and row["id"] in search:
                    out.setdefault(name, []).append((row["recall"] or 0.0, search[row["id"]]["recall"] or 0.0))
    return out


def interval(pairs: list[tuple[float, float]], draws: int = DRAWS, seed: int = 0) -> tuple[float, float, float]:
    """The ratio of mean recalls (hybrid / search) over ``draws`` resamples of the questions (with replacement,
    each question's two recalls kept together): its 2.5th and 97.5th percentiles and the share of resamples at or
    above ``MARGIN``. Seeded, so the same rows print the same interval.

    How sure the pooled margin is: a few questions more or fewer found moves a ratio near 1.3x across the line.
    """
    rng = random.Random(seed)
    ratios = []
    for _ in range(draws):
        sample = rng.choices(pairs, k=len(pairs))
        search = sum(s for _, s in sample)
        ratios.append(sum(h for h, _ in sample) / search if search else math.inf)
    ratios.sort()
    low, high = ratios[int(0.025 * draws)], ratios[min(draws - 1, int(0.975 * draws))]
    return low, high, sum(r >= MARGIN for r in ratios) / draws


def answered_n(summary: dict[str, Any]) -> int:
    """How many answerable questions' Answer holds gold: the summary keeps the share."""
    return round(summary["answer_gold"] * summary["answerable_n"])


def answered(summary: dict[str, Any]) -> str:
    """``answered_n`` of the answerable questions, as shown; n/a for search, which writes no Answer."""
    return "n/a" if math.isnan(summary["answer_gold"]) else f"{answered_n(summary)} of {summary['answerable_n']}"


RULE_FIGURES = (
    ("recall", lambda s: f"{s['recall']:.3f}"),
    ("Answer holds gold", lambda s: answered(s)),
    ("unsafe", lambda s: f"{s['unsafe_n']} of {s['safety_n']}"),
    ("none admitted", lambda s: f"{s['none_admitted']} of {s['none_n']}"),
    ("uncovered named", lambda s: f"{s['uncovered_named']} of {s['uncovered_n']}"),
    ("covered halves gapped", lambda s: f"{s['halves_gapped']} of {s['covered_halves']}"),
    ("seconds a question", lambda s: f"{s['mean_s']:.1f}"),
)
"""What a run-once set's keep/revert rule reads (README), per mode, in the bench's own summaries."""


def mode_rows(payload: dict[str, Any], mode: str) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for corpus in payload["corpora"].values() for r in corpus["results"].get(mode, [])}


def rule(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The README's keep/revert rule for a change, read off one set's runs on the code before and after it: kept
    only if the hybrid recall is at least as high, the Answer holds gold at least as often, at most one more report
    is unsafe and at most one fewer `none` question is admitted."""
    old, new = (summarise(list(mode_rows(run, "deepr hybrid").values())) for run in (before, after))
    broken = [
        name
        for name, held in (
            ("recall fell", new["recall"] >= old["recall"] - 1e-9),
            ("the Answer holds gold less often", answered_n(new) >= answered_n(old)),
            ("more than one more unsafe report", new["unsafe_n"] <= old["unsafe_n"] + 1),
            ("more than one fewer none question admitted", new["none_admitted"] >= old["none_admitted"] - 1),
        )
        if not held
    ]
    return "revert: " + "; ".join(broken) if broken else "keep"


def against_search(run: dict[str, Any], corpus: str) -> tuple[float, float] | None:
    """A corpus's hybrid recall and top-5 search recall in one run (None if the run lacks either)."""
    results = run["corpora"].get(corpus, {}).get("results", {})
    hybrid, search = results.get("deepr hybrid"), results.get(MODES[0])
    return (summarise(hybrid)["recall"], summarise(search)["recall"]) if hybrid and search else None


def margin(run: dict[str, Any]) -> str:
    """Whether the hybrid report's recall is at least ``MARGIN`` times top-5 search's on every corpus of a run (a
    corpus where search finds nothing is met when the report finds something)."""
    short = []
    for corpus in run["corpora"]:
        if (recalls := against_search(run, corpus)) is None:
            continue
        h, b = recalls
        if h < MARGIN * b or h == 0:
            short.append(f"{corpus} {h:.2f} / {b:.2f}")
    return f"not met ({', '.join(short)})" if short else "met on every corpus"


def compare(paths: list[Path]) -> str:
    """One set's runs side by side: each rule figure per mode, hybrid against search per corpus, and the reports
    each mode changed from one run to the next."""
    runs = [json.loads(p.read_text()) for p in paths]
    names = " / ".join(p.stem for p in paths)
    out = [f"| mode | figure | {names} |", "|---|---|---|"]
    for mode in MODES:
        rows = [list(mode_rows(run, mode).values()) for run in runs]
        summaries = [summarise(r) if r else None for r in rows]
        for figure, shown in RULE_FIGURES if any(summaries) else ():
            out.append(f"| {mode} | {figure} | {' / '.join(shown(s) if s else 'n/a' for s in summaries)} |")
    out += ["", f"| corpus | hybrid / top-5 search: {names} |", "|---|---|"]
    for corpus in runs[0]["corpora"]:
        cells = []
        for run in runs:
            if (recalls := against_search(run, corpus)) is None:
                cells.append("n/a")
                continue
            h, b = recalls
            cells.append(f"{h:.2f} / {b:.2f}" + (f" ({h / b:.2f}x)" if b else ""))
        out.append(f"| {corpus} | {' || '.join(cells)} |")
    out.append("")
    for (a, b), (pa, pb) in zip(pairwise(runs), pairwise(paths), strict=True):
        for mode in MODES[1:]:
            old, new = mode_rows(a, mode), mode_rows(b, mode)
            changed = sorted(k for k in old.keys() & new.keys() if old[k].get("output") != new[k].get("output"))
            out.append(f"{pa.stem} -> {pb.stem}, {mode}: {len(changed)} reports changed {', '.join(changed)}".rstrip())
        out.append(f"{pa.stem} -> {pb.stem}, the rule: {rule(a, b)}")
    out.append(f"issue 29's margin ({MARGIN}x) on {paths[-1].stem}: {margin(runs[-1])}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.run_once_rows", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    k = sub.add_parser("keep", help="keep a run-once set's end run (a research_quality --json file)")
    k.add_argument("run", type=Path)
    s = sub.add_parser("pooled", help="issue 29's margin per corpus over the kept sets")
    s.add_argument("paths", nargs="*", type=Path, help="kept files (default: every file in bench/run_once)")
    c = sub.add_parser("compare", help="one set's runs (research_quality --json files) side by side")
    c.add_argument("runs", nargs="+", type=Path)
    args = p.parse_args(argv)
    if args.command == "compare":
        print(compare(args.runs))
        return 0
    if args.command == "keep":
        print(f"kept: {keep(args.run)}")
        return 0
    paths = args.paths or sorted(FOLDER.glob("*.json"))
    print(f"{len(paths)} sets: {', '.join(p.stem for p in paths)}\n")
    pairs = paired_recalls(paths)
    print(
        "| corpus | answerable questions | hybrid recall | top-5 search recall | hybrid / search "
        f"| 95% interval ({DRAWS} resamples of the questions) | resamples at or above {MARGIN}x |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, (hybrid, search, n) in pooled(paths).items():
        ratio = f"{hybrid / search:.2f}x" if search else "n/a"
        low, high, share = interval(pairs[name])
        print(f"| {name} | {n} | {hybrid:.3f} | {search:.3f} | {ratio} | {low:.2f}x-{high:.2f}x | {share:.0%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
