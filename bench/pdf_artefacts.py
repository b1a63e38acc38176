"""PDF text artefacts in passages, before and after the PDF cleaning, printed as a table.

Run: ``.venv/bin/python -m bench.pdf_artefacts [--before /work/main] [PDF ...]``.
Each side is a fresh process with its own ``PYTHONPATH`` (``--before`` is a checkout of the code
to compare with; the after side is this checkout), ingesting the PDFs with the corpus's own
``sections_of`` + ``chunk``. The default PDFs are the Debian bash-doc and gnuplot-doc manuals.
A passage counts once per artefact kind it shows; the table gives the share of passages.

The running headers are found independently of either side: the first and last text lines of
each page (pypdf), with numbers masked, seen on three or more pages.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PDFS = [Path("/usr/share/doc/bash/bashref.pdf"), Path("/usr/share/doc/gnuplot/gnuplot.pdf")]
KINDS = {
    "hyphen": "line-end hyphen kept (`fa- cility`)",
    "header": "running header / page number glued in",
    "toc": "contents / index passage (dot leaders)",
    "footnote": "footnote mark glued to a word",
    "split": "identifier / URL split (`A_ B`, `https:// x`)",
    "quotes": "typographic quote in code (`x=’…’`)",
    "midsentence": "ends mid-sentence (not a section end)",
}
_HYPHEN = re.compile(r"\b[a-z]{2,}(?:-|\ufffe)\s+[a-z]{2,}\b")
_LEADERS = re.compile(r"(?:\.\s?){4,}\s*\d+")
_SPLIT = re.compile(r"\b[A-Za-z0-9]+_ [A-Za-z0-9]|\b(?:https?|ftp):(?:\s+/|/\s+/|//\s)|\b(?:https?|ftp)://\S+ [./] ")
_CODE_QUOTE = re.compile(r"\w=[\u2018\u2019\u201c\u201d]|\$[\u2018\u2019\u201c\u201d]\w")
_END = re.compile(r"(?:[.!?:;)\]\"'\u2019\u201d]|```)\s*$")


def _header_patterns(pdf: Path) -> list[re.Pattern[str]]:
    from pypdf import PdfReader

    seen: Counter[str] = Counter()
    for page in PdfReader(pdf).pages:
        lines = [x.strip() for x in (page.extract_text() or "").splitlines() if x.strip()]
        for line in {lines[0], lines[-1]} if lines else set():
            seen[re.sub(r"\d+", "#", line)] += 1
    out = []
    for key, count in seen.items():
        if count >= 3 and len(key) > 3 and "#" in key:
            out.append(
                re.compile(r"\s+".join(re.escape(w).replace("\\#", "#").replace("#", r"\d+") for w in key.split()))
            )
    return out


_GLUED = re.compile(r"\b([a-z]{3,})(\d{1,2})(?=[\s,.;:])")


def _footnote_marks(text: str, vocabulary: set[str], glued: Counter[str]) -> bool:
    """A word with a number glued on, seen once (``command1`` recurs: a name, not a mark), bare elsewhere."""
    return any(m.group(1) in vocabulary and glued[m.group(0)] == 1 for m in _GLUED.finditer(text))


def measure() -> dict[str, dict[str, float]]:
    """This process's code: per PDF, passage count, CPU seconds and passages per artefact kind."""
    try:
        from deepr_mcp.research.corpus.ingest import chunk, sections_of
    except ImportError:  # a checkout from before research/ was laid out as its pipeline
        from deepr_mcp.research.ingest import chunk, sections_of  # type: ignore[import-not-found,no-redef]
    out: dict[str, dict[str, float]] = {}
    for pdf in [Path(p) for p in json.loads(os.environ["PDF_ARTEFACT_FILES"])]:
        started = time.process_time()
        passages = chunk(sections_of(pdf, pdf.read_bytes()))
        seconds = time.process_time() - started
        headers = _header_patterns(pdf)
        words = [w for p in passages for w in re.findall(r"\b[a-z]+\b", p.text)]
        common = set(words)
        glued = Counter(m.group(0) for p in passages for m in _GLUED.finditer(p.text))
        counts = dict.fromkeys(KINDS, 0)
        for i, p in enumerate(passages):
            text = p.text
            last_of_section = i + 1 == len(passages) or passages[i + 1].location != p.location
            section_end = last_of_section and not re.fullmatch(r"page \d+", p.location)
            counts["hyphen"] += bool(_HYPHEN.search(text))
            counts["header"] += any(h.search(text) for h in headers)
            counts["toc"] += len(_LEADERS.findall(text)) >= 2
            counts["footnote"] += _footnote_marks(text, common, glued)
            counts["split"] += bool(_SPLIT.search(text))
            counts["quotes"] += bool(_CODE_QUOTE.search(text))
            counts["midsentence"] += not section_end and not _END.search(text)
        out[pdf.name] = {"passages": len(passages), "cpu_s": seconds, **counts}
    return out


def _side(pythonpath: Path, pdfs: list[Path]) -> dict[str, dict[str, float]]:
    files = json.dumps([str(p) for p in pdfs])
    from bench.checkouts import measure_in  # the parent only: the worker runs under the other checkout

    return measure_in(pythonpath, __file__, env={"PDF_ARTEFACT_FILES": files})  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pdfs", nargs="*", type=Path, default=PDFS)
    parser.add_argument("--before", type=Path, default=Path("/work/main"), help="checkout of the code to compare with")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(measure()))
        return
    before, after = _side(args.before, args.pdfs), _side(ROOT, args.pdfs)
    names = [p.name for p in args.pdfs]

    def total(side: dict[str, dict[str, float]], key: str) -> float:
        return sum(side[n][key] for n in names)

    print(f"PDFs: {', '.join(names)}; before = {args.before}, after = {ROOT}")
    print("| artefact (share of passages) | before | after |")
    print("|---|---:|---:|")
    nb, na = total(before, "passages"), total(after, "passages")
    for key, label in KINDS.items():
        b, a = total(before, key), total(after, key)
        print(f"| {label} | {b / nb:.1%} ({b:.0f}) | {a / na:.1%} ({a:.0f}) |")
    print(f"| passages | {nb:.0f} | {na:.0f} |")
    print(f"| CPU-s to extract + chunk | {total(before, 'cpu_s'):.1f} | {total(after, 'cpu_s'):.1f} |")


if __name__ == "__main__":
    main()
