"""Research quality on a real corpus: the local provider's reports vs plain top-5 search.

Run: ``.venv/bin/python -m bench.research_quality`` (the first run ingests the corpus, about 70-90 s
on 2 cores; the 52 questions then take under a minute with today's engine). Options: ``--limit N``, ``--only ID``
(repeatable), ``--show`` (print each report and the gold phrases it missed), ``--json PATH``,
``--retrieval lexical|semantic|hybrid`` (default: ``DEEPR_RESEARCH_RETRIEVAL``, else hybrid; passage
vectors are kept in the cached corpus: the first run embeds every passage, ``--cold-vectors`` forgets
them to measure that again),
``--timeout S`` per question, ``--max-minutes M`` for the whole run, ``--reindex``,
``--check-gold`` (verify every gold phrase occurs in the corpus, then exit).

Corpus: Debian's ``python3-doc`` (the Python documentation as HTML). When it is missing and
this runs as root with apt, it is installed; otherwise the message says how. It is ingested
once, as a user would (``corpus add /usr/share/doc/python3/html``), into
``.data/bench/research-quality/<package version>-<ingest code hash>/``: a change to the
ingest code indexes again, ``--reindex`` forces it.

Questions: ``bench/research_questions.json``, each with a type and 2-5 gold evidence phrases
copied from the documentation's prose. Per mode the table gives: hit rate (share of questions
whose output holds at least one gold phrase), evidence recall (mean share of gold phrases
held), duplicate-claim rate (share of claims repeating an earlier claim of the same report),
furniture rate (share of claims citing a navigation/index page or looking like navigation),
report words, and seconds per question (mean and p95). A claim is a cited bullet or a cited
sentence anywhere in the report but the gaps and sources sections (the summary's sentences
count too, so a summary that repeats findings word for word repeats claims); a claim is
furniture when its text holds a permalink mark ``¶``, sidebar phrases ("Previous topic", "Show
Source"), a numbered or flattened table of contents, or when a passage it cites comes from
genindex/modindex/search/contents/index pages or a sidebar heading. Modes: ``deepr`` (``Engine`` with ``LocalProvider``,
the embedded default) and ``search top-5`` (the five best ``Corpus.search`` passages; each
passage is a claim). The metric functions are in ``bench/quality_metrics.py``.

Each question runs in a worker process with a deadline, so a stuck question is killed and
recorded as a timeout, and the whole run stops at ``--max-minutes``: it can never hang.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench import quality_metrics as qm

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = Path(__file__).with_name("research_questions.json")
PACKAGE = "python3-doc"
CORPUS_DIR = Path("/usr/share/doc/python3/html")
CACHE = ROOT / ".data" / "bench" / "research-quality"
INGEST_MODULES = re.compile(r"(?:document|passage|ingest|extract|chunk|corpus|html|pdf|dedup)", re.I)
"""Modules under deepr_mcp/research whose path matches (e.g. all of research/ingest/) take part in the cache key."""
BASELINE_K = 5
MODES = ("search top-5", "deepr")
TARGETS = {"hit": 0.9, "recall": 0.7, "recall_vs_baseline": 1.3, "duplicate": 0.0, "furniture": 0.0, "p95": 5.0}


# -- the coupling to the product: keep it to these functions -----------------------------------


def open_corpus(db: Path) -> Any:
    from deepr_mcp.research.passages import Corpus

    return Corpus(db)


def ingest(corpus: Any, folder: Path) -> dict[str, int]:
    """Add the folder as ``deepr-mcp corpus add`` would; counts for the log."""
    report = corpus.add_path(folder)
    files = getattr(report, "files", [])
    failed = report.count("failed") if hasattr(report, "count") else 0
    return {"files": len(files), "failed": failed, **corpus.stats()}


def deepr_report(corpus: Any, question: str) -> tuple[str, dict[int, qm.SourceRef]]:
    """The local provider's full report and its citations: number -> source, passage id, heading."""
    import anyio

    from deepr_mcp.embedding import shared_embedder
    from deepr_mcp.research.engine import Engine, new_state
    from deepr_mcp.research.hybrid import HybridSearch, mode_from_env
    from deepr_mcp.research.providers.local import LocalProvider

    search = HybridSearch(corpus, shared_embedder("minilm"))
    engine = Engine(corpus, LocalProvider(), search=search, retrieval=mode_from_env())
    state = anyio.run(engine.run, new_state(question))
    cited = {
        c.number: qm.SourceRef(c.number, str(c.source), str(c.passage_id), str(getattr(c, "location", "") or ""))
        for c in state.passages.values()
    }
    return state.report or "", cited


def baseline_passages(corpus: Any, question: str) -> list[Any]:
    """The baseline: the top-5 passages of plain corpus search (``.text``, ``.source``, ``.location``)."""
    return list(corpus.search(question, BASELINE_K))


def all_passage_texts(corpus: Any) -> list[str]:
    if hasattr(corpus, "iter_passages"):
        return [f"{p.location}\n{p.text}" for p in corpus.iter_passages()]
    import sqlite3

    with sqlite3.connect(corpus.path) as db:
        return [r[0] for r in db.execute("SELECT text FROM passages")]


# -- corpus: find or install, then ingest once ------------------------------------------------


def package_version() -> str:
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", PACKAGE], capture_output=True, text=True, timeout=30, check=False
        )
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    # Not from dpkg (a copy of the folder): key on the folder's listing and sizes instead.
    digest = hashlib.sha256()
    for p in sorted(CORPUS_DIR.rglob("*.html")):
        digest.update(f"{p.relative_to(CORPUS_DIR)}:{p.stat().st_size}\n".encode())
    return "dir-" + digest.hexdigest()[:12]


def find_corpus() -> Path:
    if CORPUS_DIR.is_dir() and any(CORPUS_DIR.glob("*.html")):
        return CORPUS_DIR
    how = f"install Debian's {PACKAGE} (sudo apt-get install -y {PACKAGE}); it puts the HTML under {CORPUS_DIR}"
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise SystemExit(f"research_quality: the corpus is missing: {how}")
    print(f"research_quality: installing {PACKAGE} with apt-get ...", file=sys.stderr)
    apt = ["apt-get", "-o", "DPkg::Lock::Timeout=300", "-y", "-q"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    result = subprocess.run([*apt, "install", PACKAGE], env=env, timeout=900, check=False)
    if result.returncode != 0:  # an empty or stale package list: update once and try again
        subprocess.run([*apt, "update"], env=env, timeout=900, check=False)
        result = subprocess.run([*apt, "install", PACKAGE], env=env, timeout=900, check=False)
    if result.returncode != 0 or not CORPUS_DIR.is_dir():
        raise SystemExit(f"research_quality: apt-get could not install {PACKAGE}: {how}")
    return CORPUS_DIR


def ingest_code_hash() -> tuple[str, list[str]]:
    """A hash of the ingest code (and pyproject.toml, for its extractor dependencies)."""
    research = ROOT / "deepr_mcp" / "research"
    files = sorted(p for p in research.rglob("*.py") if INGEST_MODULES.search(str(p.relative_to(research))))
    files.append(ROOT / "pyproject.toml")
    digest = hashlib.sha256()
    for p in files:
        if p.is_file():
            digest.update(str(p.relative_to(ROOT)).encode() + b"\0" + p.read_bytes() + b"\0")
    return digest.hexdigest()[:12], [str(p.relative_to(ROOT)) for p in files]


def ready_corpus(folder: Path, *, reindex: bool) -> Path:
    """The cached corpus database for this package version and ingest code; built when missing."""
    code_hash, code_files = ingest_code_hash()
    key = f"{PACKAGE}-{package_version()}-ingest-{code_hash}"
    target = CACHE / key
    db = target / "corpus.db"
    meta_file = target / "meta.json"
    if not reindex and meta_file.is_file() and db.is_file():
        meta = json.loads(meta_file.read_text())
        print(
            f"corpus: cached {target.relative_to(ROOT)}: {meta['files']:,} files, {meta['passages']:,} passages "
            f"(ingested in {meta['seconds']:.0f} s; --reindex to redo)",
            file=sys.stderr,
        )
        return db
    building = CACHE / f"{key}.building-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    where = target.relative_to(ROOT)
    print(f"corpus: ingesting {folder} into {where} (ingest code: {', '.join(code_files)})", file=sys.stderr)
    t0 = time.perf_counter()
    corpus = open_corpus(building / "corpus.db")
    try:
        counts = ingest(corpus, folder)
    finally:
        corpus.close()
    seconds = time.perf_counter() - t0
    meta = {"folder": str(folder), "files": counts["files"], "failed": counts["failed"]}
    meta |= {"documents": counts.get("documents", 0), "passages": counts.get("passages", 0), "seconds": seconds}
    (building / "meta.json").write_text(json.dumps(meta, indent=2))
    shutil.rmtree(target, ignore_errors=True)
    try:
        building.rename(target)  # a half-built corpus is never taken for a cached one
    except OSError:  # another run finished the same corpus first: use that one
        shutil.rmtree(building, ignore_errors=True)
    print(
        f"corpus: {meta['files']:,} files ({meta['failed']} failed), {meta['documents']:,} documents, "
        f"{meta['passages']:,} passages in {seconds:.0f} s",
        file=sys.stderr,
    )
    return db


# -- questions and gold ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    type: str
    question: str
    gold: list[str]
    pages: list[str] = field(default_factory=list)


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    data = json.loads(path.read_text())
    out = [
        Question(q["id"], q["type"], q["question"], list(q["gold"]), list(q.get("pages", [])))
        for q in data["questions"]
    ]
    ids = [q.id for q in out]
    if len(set(ids)) != len(ids):
        raise SystemExit("research_quality: duplicate question ids in the question set")
    return out


def html_text(raw: str) -> str:
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", " ", raw))


def check_gold(db: Path, folder: Path, questions: list[Question]) -> int:
    """Every gold phrase must be in the ingested passages (else at least in the raw HTML text)."""
    corpus = open_corpus(db)
    try:
        passages = "|".join(qm.normalise(t) for t in all_passage_texts(corpus))
    finally:
        corpus.close()
    pages = "|".join(qm.normalise(html_text(p.read_text(errors="replace"))) for p in sorted(folder.rglob("*.html")))
    missing = html_only = 0
    for q in questions:
        for phrase in q.gold:
            norm = qm.normalise(phrase)
            words = len(phrase.split())
            if norm in qm.normalise(q.question):
                status, missing = "IN THE QUESTION (a report echoing the question would match it)", missing + 1
            elif norm in passages:
                status = "ok"
            elif norm in pages:
                status, html_only = "only in raw HTML (split across passages or dropped by ingest)", html_only + 1
            else:
                status, missing = "MISSING", missing + 1
            if status != "ok" or not 3 <= words <= 10:
                print(f"{q.id}: {phrase!r} ({words} words): {status}")
    total = sum(len(q.gold) for q in questions)
    found = total - missing - html_only
    print(f"gold phrases: {total}, in passages: {found}, only in HTML: {html_only}, missing: {missing}")
    return 1 if missing else 0


# -- running a question in a worker with a deadline --------------------------------------------


def answer(corpus: Any, mode: str, question: str) -> dict[str, Any]:
    """One question in one mode: its output text and claims with their cited sources."""
    t0 = time.perf_counter()
    if mode == "deepr":
        report, cited = deepr_report(corpus, question)
        seconds = time.perf_counter() - t0
        parsed = qm.parse_report(report)
        refs = {**parsed.sources, **cited}  # the engine's own map wins over the parsed list
        claims = [
            {
                "text": c.text,
                "sources": [[refs[n].source, refs[n].location] for n in c.citations if n in refs],
                "citations": list(c.citations),
            }
            for c in parsed.claims
        ]
        return {"output": report, "claims": claims, "seconds": seconds}
    hits = baseline_passages(corpus, question)
    seconds = time.perf_counter() - t0
    output = "\n\n".join(f"[{i + 1}] {h.location}\n{h.text}" for i, h in enumerate(hits))
    claims = [
        {"text": h.text, "sources": [[str(h.source), str(h.location)]], "citations": [i + 1]}
        for i, h in enumerate(hits)
    ]
    return {"output": output, "claims": claims, "seconds": seconds}


def _worker(conn: Any, db: str) -> None:
    corpus = open_corpus(Path(db))
    while True:
        job = conn.recv()
        if job is None:
            break
        mode, question = job
        t0 = time.perf_counter()
        try:
            conn.send(answer(corpus, mode, question))
        except Exception as exc:  # a bench reports a broken question and goes on
            conn.send({"error": f"{type(exc).__name__}: {exc}", "seconds": time.perf_counter() - t0})
    corpus.close()


class Worker:
    def __init__(self, db: Path) -> None:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self.ctx = multiprocessing.get_context(method)
        self.db = db
        self.proc: Any = None
        self.conn: Any = None

    def _start(self) -> None:
        parent, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker, args=(child, str(self.db)), daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent

    def ask(self, mode: str, question: str, timeout: float) -> dict[str, Any]:
        if self.proc is None or not self.proc.is_alive():
            self._start()
        t0 = time.perf_counter()
        self.conn.send((mode, question))
        if self.conn.poll(timeout):
            try:
                return self.conn.recv()
            except EOFError:
                self.stop()
                return {"error": "worker died", "seconds": time.perf_counter() - t0}
        seconds = time.perf_counter() - t0
        self.stop()
        return {"error": f"timeout after {timeout:g} s", "seconds": seconds}

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.is_alive():
                try:
                    self.conn.send(None)
                except OSError:
                    pass
                self.proc.join(2)
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join(5)
            self.proc = None


# -- scoring -----------------------------------------------------------------------------------


def score(q: Question, result: dict[str, Any]) -> dict[str, Any]:
    output = result.get("output", "")
    claims = result.get("claims", [])
    found = qm.gold_found(output, q.gold)
    dups = qm.duplicate_flags([c["text"] for c in claims])
    furniture = [qm.is_furniture(c["text"], [tuple(s) for s in c["sources"]]) for c in claims]
    return {
        "id": q.id,
        "type": q.type,
        "question": q.question,
        "error": result.get("error"),
        "seconds": result.get("seconds", 0.0),
        "hit": any(found),
        "recall": sum(found) / len(found),
        "gold_found": [p for p, f in zip(q.gold, found, strict=True) if f],
        "gold_missed": [p for p, f in zip(q.gold, found, strict=True) if not f],
        "claims": len(claims),
        "duplicate_claims": [c["text"] for c, d in zip(claims, dups, strict=True) if d],
        "furniture_claims": [c["text"] for c, f in zip(claims, furniture, strict=True) if f],
        "words": len(output.split()),
        "output": output,
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, float]:
    n = len(rows)
    claims = sum(r["claims"] for r in rows)
    duplicates = sum(len(r["duplicate_claims"]) for r in rows)
    furniture = sum(len(r["furniture_claims"]) for r in rows)
    seconds = [r["seconds"] for r in rows]  # a timeout counts with the time it took to give up
    return {
        "questions": n,
        "hit": sum(r["hit"] for r in rows) / n if n else 0.0,
        "recall": sum(r["recall"] for r in rows) / n if n else 0.0,
        "duplicate": duplicates / claims if claims else 0.0,
        "furniture": furniture / claims if claims else 0.0,
        "duplicate_n": duplicates,
        "furniture_n": furniture,
        "claims_n": claims,
        "claims": claims / n if n else 0.0,
        "words": statistics.mean(r["words"] for r in rows) if rows else 0.0,
        "mean_s": statistics.mean(seconds) if seconds else 0.0,
        "p95_s": qm.percentile(seconds, 0.95),
        "errors": sum(1 for r in rows if r["error"]),
    }


def meets(summary: dict[str, float], baseline: dict[str, float]) -> dict[str, bool]:
    return {
        "hit": summary["hit"] >= TARGETS["hit"],
        "recall": summary["recall"] >= TARGETS["recall"]
        and summary["recall"] >= TARGETS["recall_vs_baseline"] * baseline["recall"],
        "duplicate": summary["duplicate"] <= TARGETS["duplicate"],
        "furniture": summary["furniture"] <= TARGETS["furniture"],
        "p95_s": summary["p95_s"] < TARGETS["p95"],
        "errors": summary["errors"] == 0,
    }


def table(summaries: dict[str, dict[str, float]]) -> str:
    base = summaries["search top-5"]
    deepr = summaries["deepr"]
    ok = meets(deepr, base)
    mark = {True: "yes", False: "**no**"}
    rows = [
        ("hit rate", "hit", "{:.2f}", f">= {TARGETS['hit']}", mark[ok["hit"]]),
        (
            "evidence recall",
            "recall",
            "{:.2f}",
            f">= {TARGETS['recall']} and >= {TARGETS['recall_vs_baseline']}x baseline "
            f"(>= {max(TARGETS['recall'], TARGETS['recall_vs_baseline'] * base['recall']):.2f})",
            mark[ok["recall"]],
        ),
        ("duplicate-claim rate", "duplicate", "{:.2f}", "0", mark[ok["duplicate"]]),
        ("furniture rate", "furniture", "{:.2f}", "0", mark[ok["furniture"]]),
        ("claims per question", "claims", "{:.1f}", "", ""),
        ("report words (mean)", "words", "{:.0f}", "", ""),
        ("seconds per question, mean", "mean_s", "{:.2f}", "", ""),
        ("seconds per question, p95", "p95_s", "{:.2f}", f"< {TARGETS['p95']:.0f}", mark[ok["p95_s"]]),
        ("errors and timeouts", "errors", "{:.0f}", "0", mark[ok["errors"]]),
    ]
    out = [
        f"| metric ({int(deepr['questions'])} questions) | search top-5 (baseline) | deepr "
        "| target (issue 17) | deepr meets it |",
        "|---|---:|---:|---|---|",
    ]

    def cell(summary: dict[str, float], key: str, fmt: str) -> str:
        if key in ("duplicate", "furniture"):  # the counts show a rate that rounds to 0.00 but is not 0
            return f"{fmt.format(summary[key])} ({summary[key + '_n']:.0f} of {summary['claims_n']:.0f})"
        return fmt.format(summary[key])

    for label, key, fmt, target, met in rows:
        out.append(f"| {label} | {cell(base, key, fmt)} | {cell(deepr, key, fmt)} | {target} | {met} |")
    return "\n".join(out)


def by_type_table(results: dict[str, list[dict[str, Any]]]) -> str:
    types: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for mode, rows in results.items():
        for r in rows:
            types[r["type"]][mode].append(r)
    out = [
        "| question type | n | hit top-5 | hit deepr | recall top-5 | recall deepr |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for kind in sorted(types):
        base, deepr = summarise(types[kind]["search top-5"]), summarise(types[kind]["deepr"])
        out.append(
            f"| {kind} | {int(deepr['questions'])} | {base['hit']:.2f} | {deepr['hit']:.2f} "
            f"| {base['recall']:.2f} | {deepr['recall']:.2f} |"
        )
    return "\n".join(out)


def show(q: Question, scored: dict[str, dict[str, Any]]) -> None:
    print(f"\n{'=' * 100}\n## {q.id} ({q.type}): {q.question}\n")
    for mode in MODES:
        r = scored[mode]
        print(f"### {mode}: recall {r['recall']:.2f}, {r['claims']} claims, {r['seconds']:.2f} s")
        if r["error"]:
            print(f"ERROR: {r['error']}")
        print(f"\n{r['output'].rstrip()}\n")
        print(f"gold found: {r['gold_found']}")
        print(f"gold MISSED: {r['gold_missed']}")
        for text in r["duplicate_claims"]:
            print(f"duplicate claim: {text[:160]}")
        for text in r["furniture_claims"]:
            print(f"furniture claim: {' '.join(text.split())[:160]}")
        print()


# -- main --------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.research_quality", description=__doc__.split("\n\n")[0])
    p.add_argument("--limit", type=int, help="only the first N questions")
    p.add_argument("--only", action="append", default=[], metavar="ID", help="only this question (repeatable)")
    p.add_argument("--show", action="store_true", help="print every report/baseline and the gold phrases it missed")
    p.add_argument("--json", type=Path, metavar="PATH", help="write per-question results and summaries here")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per question and mode (default 60)")
    p.add_argument("--max-minutes", type=float, default=30.0, help="wall-clock cap for the whole run (default 30)")
    p.add_argument("--reindex", action="store_true", help="ingest the corpus again even if cached")
    p.add_argument("--check-gold", action="store_true", help="verify the gold phrases occur in the corpus, then exit")
    p.add_argument("--questions", type=Path, default=QUESTIONS, help="question set (JSON, as the default)")
    p.add_argument(
        "--retrieval",
        choices=("lexical", "semantic", "hybrid"),
        default=os.environ.get("DEEPR_RESEARCH_RETRIEVAL", "hybrid"),
        help="how deepr ranks: by words, by meaning or both fused (default hybrid; the corpus is embedded first, "
        "once: its vectors are kept in the cached corpus)",
    )
    p.add_argument(
        "--cold-vectors",
        action="store_true",
        help="forget the passage vectors stored by earlier runs first (measures embedding the corpus again)",
    )
    return p.parse_args(argv)


def embed_corpus(db: Path, *, cold: bool) -> None:
    """Give every passage of the cached corpus its vector (resumable: only what is missing is embedded)."""
    from deepr_mcp.embedding import shared_embedder
    from deepr_mcp.research.backfill import embed_pending

    corpus = open_corpus(db)
    try:
        if cold:
            print(f"forgot {corpus.forget_embeddings():,} stored passage vectors", file=sys.stderr)
        embedder = shared_embedder("minilm")
        cpu, wall = time.process_time(), time.perf_counter()
        done = embed_pending(corpus, embedder)
        if done:
            print(
                f"embedded {done:,} passages in {time.perf_counter() - wall:.0f} s "
                f"({time.process_time() - cpu:.0f} CPU-s)",
                file=sys.stderr,
            )
    finally:
        corpus.close()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ["DEEPR_RESEARCH_RETRIEVAL"] = args.retrieval  # read by the workers (forked after this)
    print(f"deepr retrieval: {args.retrieval}")
    questions = load_questions(args.questions)
    if args.only:
        unknown = set(args.only) - {q.id for q in questions}
        if unknown:
            raise SystemExit(f"research_quality: unknown question id(s): {', '.join(sorted(unknown))}")
        questions = [q for q in questions if q.id in args.only]
    if args.limit:
        questions = questions[: args.limit]
    folder = find_corpus()
    db = ready_corpus(folder, reindex=args.reindex)
    if args.check_gold:
        return check_gold(db, folder, questions)
    if args.retrieval != "lexical":
        embed_corpus(db, cold=args.cold_vectors)

    deadline = time.monotonic() + args.max_minutes * 60
    worker = Worker(db)
    results: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
    skipped = 0
    started = time.perf_counter()
    try:
        for index, q in enumerate(questions, start=1):
            left = deadline - time.monotonic()
            if left <= 1:
                skipped = len(questions) - index + 1
                print(f"wall-clock cap of {args.max_minutes:g} min: {skipped} questions not run", file=sys.stderr)
                break
            scored = {}
            for mode in MODES:
                result = worker.ask(mode, q.question, min(args.timeout, max(1.0, deadline - time.monotonic())))
                scored[mode] = score(q, result)
                results[mode].append(scored[mode])
            d = scored["deepr"]
            print(
                f"[{index}/{len(questions)}] {q.id}: deepr recall {d['recall']:.2f} in {d['seconds']:.2f} s, "
                f"top-5 recall {scored['search top-5']['recall']:.2f}" + (f" ({d['error']})" if d["error"] else ""),
                file=sys.stderr,
            )
            if args.show:
                show(q, scored)
    finally:
        worker.stop()
    if not results["deepr"]:
        print("no question was run", file=sys.stderr)
        return 1
    summaries = {mode: summarise(rows) for mode, rows in results.items()}
    print(f"\nResearch quality on {PACKAGE} ({folder}), {len(results['deepr'])} questions", end="")
    print(f" ({skipped} skipped at the wall-clock cap)" if skipped else "", end="")
    print(f", {time.perf_counter() - started:.0f} s in all:\n")
    print(table(summaries))
    print()
    print(by_type_table(results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "corpus": {"package": PACKAGE, "version": package_version(), "db": str(db)},
            "targets": TARGETS,
            "summaries": summaries,
            "deepr_meets": meets(summaries["deepr"], summaries["search top-5"]),
            "skipped": skipped,
            "questions": [asdict(q) for q in questions],
            "results": results,
        }
        args.json.write_text(json.dumps(payload, indent=2, ensure_ascii=False))
        print(f"\nresults: {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
