"""The rows of each run-once set's end run, kept in the repository, and issue 29's margin pooled over them.

Run: ``.venv/bin/python -m bench.run_once_rows keep RUN.json`` (after ``research_quality --set S --json
RUN.json``), then ``.venv/bin/python -m bench.run_once_rows pooled`` (hybrid recall against top-5 search per
corpus over every kept set, as ``research_quality --summed`` prints it).

Issue 29's margin is judged per set and pooled over every held-out set run so far. The pooled figure used to
be summed from the ``--json`` files of earlier sessions' runs, kept in scratch folders that a new machine does
not have: the twenty-sixth session found them gone. So the rows that the margin needs (top-5 search and the
hybrid report, every figure ``research_quality.summarise`` reads, without the report text) are kept here, one
file per set, ``bench/run_once/<set>.json``, in the shape ``--summed`` reads.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench.research_quality import summarise

FOLDER = Path(__file__).resolve().parent / "run_once"
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
    """Per corpus: hybrid recall, top-5 search recall and answerable questions, over every row of ``paths``."""
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for path in paths:
        for name, corpus in json.loads(path.read_text())["corpora"].items():
            for mode in KEPT_MODES:
                rows.setdefault(name, {}).setdefault(mode, []).extend(corpus["results"].get(mode, []))
    out = {}
    for name, by in sorted(rows.items()):
        if by["deepr hybrid"] and by["search top-5"]:
            hybrid, search = summarise(by["deepr hybrid"]), summarise(by["search top-5"])
            out[name] = (hybrid["recall"], search["recall"], int(hybrid["answerable_n"]))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.run_once_rows", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    k = sub.add_parser("keep", help="keep a run-once set's end run (a research_quality --json file)")
    k.add_argument("run", type=Path)
    s = sub.add_parser("pooled", help="issue 29's margin per corpus over the kept sets")
    s.add_argument("paths", nargs="*", type=Path, help="kept files (default: every file in bench/run_once)")
    args = p.parse_args(argv)
    if args.command == "keep":
        print(f"kept: {keep(args.run)}")
        return 0
    paths = args.paths or sorted(FOLDER.glob("*.json"))
    print(f"{len(paths)} sets: {', '.join(p.stem for p in paths)}\n")
    print("| corpus | answerable questions | hybrid recall | top-5 search recall | hybrid / search |")
    print("|---|---:|---:|---:|---:|")
    for name, (hybrid, search, n) in pooled(paths).items():
        ratio = f"{hybrid / search:.2f}x" if search else "n/a"
        print(f"| {name} | {n} | {hybrid:.3f} | {search:.3f} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
