"""Page furniture left in HTML passages, by two checkouts of the code, printed as a table.

Run: ``.venv/bin/python -m bench.html_furniture --before CHECKOUT [FOLDER ...]``. Each side is a fresh
process with its own ``PYTHONPATH`` (``--before`` is a checkout to compare with, the after side this one)
that adds each folder to a throwaway corpus as ``corpus add`` does, then counts its passages and those
that hold page furniture: a previous/next/up bar ("Next: ... Up: ... Index"), a copy button's text at a
code block's end, a bracketed side link in a heading path, a layout menu whose words ran together. The
default folders are documentation this machine's Debian packages install from generators the research
bench lacks (LaTeX2HTML, Texinfo 6, layout tables, DocBook).
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = [
    Path("/usr/share/doc/gnuplot/htmldocs"),
    Path("/usr/share/doc/libffi8/html"),
    Path("/usr/share/doc/libxslt1-dev"),
    Path("/usr/share/doc/valgrind/html"),
]
FURNITURE = re.compile(
    r"(?:^|\n)(?:Next|Previous|Prev|Up):? .*\b(?:Up|Index|Previous|Next)\b"  # a previous/next/up bar
    r"|copy\n```"  # a copy button's text inside a code block
    r"|Menu[A-Z][a-z]"  # a layout menu's words run together ("MenuMain MenuDeveloper")
)
SIDE_LINK = re.compile(r"\[src\]|\[source\]|\[edit\]")


def measure(folders: list[Path]) -> dict[str, dict[str, int]]:
    """This process's code: per folder, passages and passages holding furniture."""
    from deepr_mcp.research.corpus.storage import Corpus

    out = {}
    for folder in folders:
        with tempfile.TemporaryDirectory() as scratch:
            corpus = Corpus(Path(scratch) / "corpus.db")
            corpus.add_path(folder)
            rows = corpus._db.execute("SELECT location, text FROM passages").fetchall()
            corpus.close()
        held = sum(bool(FURNITURE.search(text) or SIDE_LINK.search(location)) for location, text in rows)
        out[str(folder)] = {"passages": len(rows), "furniture": held}
    return out


def _side(pythonpath: Path, folders: list[Path]) -> dict[str, dict[str, int]]:
    from bench.checkouts import measure_in  # the parent only: the worker runs under the other checkout

    return measure_in(pythonpath, __file__, *map(str, folders))  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, default=FOLDERS)
    parser.add_argument("--before", type=Path, help="checkout of the code to compare with (required)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(measure(args.folders)))
        return
    if args.before is None:
        parser.error("--before CHECKOUT is required: the code to compare this checkout with")
    folders = [f.resolve() for f in args.folders if f.is_dir()]
    if not folders:
        raise SystemExit(f"html_furniture: none of {', '.join(map(str, args.folders))} is a folder here")
    before, after = _side(args.before, folders), _side(ROOT, folders)
    print(f"before = {args.before}, after = {ROOT}")
    print("| folder | passages before -> after | holding furniture, before -> after |")
    print("|---|---:|---:|")
    for folder in map(str, folders):
        b, a = before[folder], after[folder]
        print(f"| {folder} | {b['passages']:,} -> {a['passages']:,} | {b['furniture']:,} -> {a['furniture']:,} |")


if __name__ == "__main__":
    main()
