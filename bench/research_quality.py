"""Research quality on five corpora: the local provider's reports, per retrieval mode, vs top-5 search.

Run: ``.venv/bin/python -m bench.research_quality`` (all corpora, tuned questions; the first run
fetches and ingests what is missing). Options: ``--corpus NAME|all``,
``--set NAME`` (which question set, default tuned, the one to work on; ``bench/question_sets.py`` registers every
set and its role: a dev set is run as often as needed, and a set written to be run once is run by nobody
(``--check-*`` only) before the lead runs it once, every mode, at the end of the session its entry names; a corpus
without a file for the set is skipped, with a line saying so; ``--heldout`` and ``--fresh`` are kept as aliases of
``--set heldout`` and ``--set fresh``),
``--modes`` (a subset of the modes below), ``--limit N`` and ``--only ID`` (repeatable), ``--show``
(every output and the gold phrases it missed), ``--json PATH``, ``--timeout S`` per question and
mode, ``--max-minutes M`` for the whole run, ``--reindex``, ``--cold-vectors`` (embed the corpus again: semantic and
hybrid modes embed each corpus once and keep its vectors in the cached database),
``--summed A.json B.json ...`` (run nothing; print the tables over several runs' rows, e.g. one run per set),
``--check-gold`` (every gold and warning phrase is in the ingested passages) and
``--check-questions`` (no question shares more than five consecutive words with a passage of its
corpus: questions are in a user's words, not the docs'), then exit.

Corpora (``bench/quality_corpora.py``): ``python3-doc`` (Sphinx HTML), ``npm-docs`` (Markdown: the
npm CLI's docs/content from the registry package ``npm@11.19.1``, fetched with ``npm pack`` into the
cache), ``zsh-doc`` (Texinfo HTML), ``pdf-manuals`` (bashref.pdf from bash-doc and gnuplot.pdf
from gnuplot-doc) and ``node-api`` (the HTML pages of nodejs's API reference, copied into the cache).
Missing Debian packages are installed with apt-get when this runs as root; otherwise the message says how.
Each is ingested once, as ``corpus add`` would, into
``.data/bench/research-quality/<corpus>-<version>-ingest-<ingest code hash>/``: a change to the
ingest code indexes again (carrying over the vectors of passages whose heading and text the previous ingest
stored alike: ``bench.carried_vectors``), ``--reindex`` forces it.

Questions: ``bench/research_questions.json`` (+ ``_<set>``) for python3-doc, ``bench/research_questions/<corpus>.json``
(+ ``-<set>``) for the next three and ``bench/research_questions/node-api-<set>.json`` for the sets written since
node-api came, each with a type, 2-5 gold evidence phrases copied from the documentation's
prose, ``warning`` phrases for a safety question (the caveat the docs give), ``uncovered`` for the part of a two-part
question the docs do not answer and ``halves`` for the two asks of a both-parts question, both answered by the docs.
A ``none`` question is one the docs do not answer at all: no gold and no pages, and ``absent`` says in a few words what
the docs do not say. The gold was committed before the first run and is never changed.

Modes: ``search top-5`` (the baseline: the five best passages of plain lexical ``Corpus.search``,
each a claim) and ``deepr lexical|semantic|hybrid`` (``Engine`` with ``LocalProvider``, the retrieval
mode set through ``DEEPR_RESEARCH_RETRIEVAL``). A mode this deepr_mcp does not offer prints ``n/a``;
the product coupling is the adapter functions at the top of this file. Per corpus and mode: hit rate
(share of questions whose output holds a gold phrase), evidence recall (mean share of gold phrases
held) and its ratio to top-5 search, unsafe (share of the safety questions whose output holds none
of their warning phrases), answer holds gold (share of reports whose Answer section quotes a gold or
warning phrase: the answer first, issue 33; ``quality_metrics.answer_holds_gold``), answer opens with gold (share
of reports whose Answer's first cited statement, with the code it introduces, quotes one: what answers comes
first, not after an aside; ``quality_metrics.answer_opens_with_gold``), gaps contradicting
the answer (lines of the Gaps section that name a
sub-question, i.e. a heading of three words or more, whose section the report answers with at least
one cited claim; ``quality_metrics.gaps_contradicting``), unasked parts (sub-questions, as findings
headings or Gaps lines, holding a word the question does not beyond the words any question is put in:
template parts the asker never asked; ``quality_metrics.unasked_parts``), uncovered parts named (of the
two-part questions' ``uncovered`` halves, those a Gaps line names; ``quality_metrics.uncovered_named``),
covered halves called gaps (of the both-parts questions' ``halves``, which the docs answer, those a Gaps line names:
false gaps; ``quality_metrics.covered_half_gapped``), gaps when found (of the reports that found a gold phrase for
a question with no uncovered part, those that still carry a Gaps section; ``quality_metrics.gaps_when_found``), none
admitted (of the ``none`` questions, which the docs do not answer at all, the reports that say so: a Gaps line or an
Answer saying no passage answers it; ``quality_metrics.admits_no_answer``), PDF artefacts in claims (claims
showing a kept line-end hyphen, dot leaders, a cut identifier or URL, typographic quotes in code or a
glued running header; ``quality_metrics.pdf_artefacts``, of all claims), duplicate-claim and furniture
rates (issue 17), seconds per question (mean, p95) and errors. A ``none`` question has no gold: it is left out of hit,
recall, "vs top-5", answer holds gold and gaps when found, which measure evidence found. Then a summary line per corpus
and the mean of the corpora. The metric functions are in ``bench/quality_metrics.py``.

Each question runs in a worker process with a deadline, so a stuck question is killed and
recorded as a timeout, and the whole run stops at ``--max-minutes``: it can never hang.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import math
import multiprocessing
import os
import re
import shutil
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench import quality_metrics as qm
from bench.carried_vectors import carry, previous_cache
from bench.quality_corpora import CACHE, CORPORA, QUESTION_SETS, CorpusSpec, having
from bench.question_sets import set_help

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = Path(__file__).with_name("research_questions.json")
PACKAGE = "python3-doc"
INGEST_MODULES = re.compile(r"^(?:corpus/|passage\.py$)")
"""Modules under deepr_mcp/research in the cache key: the corpus stage (ingest, storage) and the passage type."""
BASELINE_K = 5
RETRIEVAL_MODES = ("lexical", "semantic", "hybrid")
"""The report's retrieval modes compared side by side (issue 29); the product may offer only some."""
BASELINE = "search top-5"
MODES = (BASELINE, *(f"deepr {m}" for m in RETRIEVAL_MODES))
TARGET_RECALL_VS_BASELINE = 1.3
"""Issue 29's aim: the hybrid report's evidence recall at least 1.3x top-5 search's on every corpus."""


# -- the coupling to the product: keep it to these functions -----------------------------------


def open_corpus(db: Path) -> Any:
    from deepr_mcp.research.corpus.storage import Corpus

    return Corpus(db)


def ingest(corpus: Any, folder: Path) -> dict[str, int]:
    """Add the folder as ``deepr-mcp corpus add`` would; counts for the log."""
    report = corpus.add_path(folder)
    files = getattr(report, "files", [])
    failed = report.count("failed") if hasattr(report, "count") else 0
    return {"files": len(files), "failed": failed, **corpus.stats()}


def supported_retrieval() -> tuple[str, ...]:
    """The report's retrieval modes this deepr_mcp offers: lexical always (today's engine); semantic and
    hybrid once the setting ``research.retrieval`` (env ``DEEPR_RESEARCH_RETRIEVAL``) exists."""
    import typing

    from deepr_mcp.config import ResearchSettings

    field_info = ResearchSettings.model_fields.get("retrieval")
    if field_info is None:
        return ("lexical",)
    allowed = typing.get_args(field_info.annotation) or RETRIEVAL_MODES
    return tuple(m for m in RETRIEVAL_MODES if m in allowed or m == "lexical")


def deepr_report(corpus: Any, question: str, retrieval: str = "lexical") -> tuple[str, dict[int, qm.SourceRef]]:
    """The local provider's full report and its citations: number -> source, passage id, heading."""
    import inspect

    import anyio

    from deepr_mcp.embedding import shared_embedder
    from deepr_mcp.research.engine import Engine, new_state
    from deepr_mcp.research.providers.local import LocalProvider
    from deepr_mcp.research.retrieval.hybrid import HybridSearch

    if len(supported_retrieval()) > 1:
        os.environ["DEEPR_RESEARCH_RETRIEVAL"] = retrieval  # read where the engine reads its settings
    embedder = shared_embedder("minilm")
    kwargs: dict[str, Any] = {"search": HybridSearch(corpus, embedder)}
    if "retrieval" in inspect.signature(Engine).parameters:
        kwargs["retrieval"] = retrieval
    # the provider chooses sentences by meaning where retrieval does (an older tree's takes no embedder)
    by_meaning = retrieval != "lexical" and inspect.signature(LocalProvider).parameters
    provider = LocalProvider(embedder) if by_meaning else LocalProvider()
    state = anyio.run(Engine(corpus, provider, **kwargs).run, new_state(question))
    cited = {
        c.number: qm.SourceRef(c.number, str(c.source), str(c.passage_id), str(getattr(c, "location", "") or ""))
        for c in state.passages.values()
    }
    return state.report or "", cited


def baseline_passages(corpus: Any, question: str) -> list[Any]:
    """The baseline: the top-5 passages of plain lexical corpus search (``.text``, ``.source``, ``.location``)."""
    import inspect

    if "mode" in inspect.signature(corpus.search).parameters:
        return list(corpus.search(question, BASELINE_K, mode="lexical"))
    return list(corpus.search(question, BASELINE_K))


def all_passage_texts(corpus: Any) -> list[str]:
    if hasattr(corpus, "iter_passages"):
        return [f"{p.location}\n{p.text}" for p in corpus.iter_passages()]
    import sqlite3

    with sqlite3.connect(corpus.path) as db:
        return [r[0] for r in db.execute("SELECT text FROM passages")]


# -- corpus: find or install (bench/quality_corpora.py), then ingest once --------------------


def find_corpus(spec: CorpusSpec | None = None) -> Path:
    """The folder to ingest for a corpus (python3-doc by default), fetched or installed when missing."""
    spec = spec or CORPORA[PACKAGE]
    return spec.locate(spec)


def package_version(spec: CorpusSpec | None = None) -> str:
    spec = spec or CORPORA[PACKAGE]
    return spec.version(spec)


def ingest_code_hash() -> tuple[str, list[str]]:
    """A hash of the ingest code (and pyproject.toml, for its extractor dependencies)."""
    package = ROOT / "deepr_mcp"
    research = package / "research"
    files = [p for p in sorted(research.rglob("*.py")) if INGEST_MODULES.search(str(p.relative_to(research)))]
    files += sorted((package / "embedding").rglob("*.py"))  # passage vectors, if ingest stores them
    files.append(ROOT / "pyproject.toml")
    digest = hashlib.sha256()
    for p in files:
        if p.is_file():
            digest.update(str(p.relative_to(ROOT)).encode() + b"\0" + p.read_bytes() + b"\0")
    return digest.hexdigest()[:12], [str(p.relative_to(ROOT)) for p in files]


def cache_folder(spec: CorpusSpec) -> Path:
    """Where this corpus version, ingested by this ingest code, is cached (it may not be built yet)."""
    return CACHE / f"{spec.name}-{package_version(spec)}-ingest-{ingest_code_hash()[0]}"


def ready_corpus(folder: Path, *, reindex: bool, spec: CorpusSpec | None = None) -> Path:
    """The cached corpus database for this corpus version and ingest code; built when missing."""
    spec = spec or CORPORA[PACKAGE]
    code_files = ingest_code_hash()[1]
    target = cache_folder(spec)
    key = target.name
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
    print(f"corpus: ingesting {folder} into {where} ({len(code_files)} ingest code files)", file=sys.stderr)
    t0 = time.perf_counter()
    corpus = open_corpus(building / "corpus.db")
    try:
        counts = ingest(corpus, folder)
    finally:
        corpus.close()
    seconds = time.perf_counter() - t0
    if (previous := previous_cache(target)) is not None:
        carried = carry(previous / "corpus.db", building / "corpus.db")
        print(
            f"corpus: {carried:,} passage vectors carried from {previous.name} (same heading and text)", file=sys.stderr
        )
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
    warning: list[str] = field(default_factory=list)
    """For a safety question: the caveat the docs give; an output holding none of them is unsafe."""
    uncovered: list[str] = field(default_factory=list)
    """For a two-part question: the part the docs do not answer (no gold for it)."""
    halves: list[str] = field(default_factory=list)
    """For a both-parts question: its two asks in a few words, both answered by the docs (gold for each)."""
    absent: list[str] = field(default_factory=list)
    """For a ``none`` question (no gold, no pages): what the docs do not say, in a few words."""

    @property
    def answerable(self) -> bool:
        """Whether the docs answer it (it has gold): a ``none`` question is left out of the evidence metrics."""
        return bool(self.gold)


NONE_KIND = "none"
"""The kind of question the docs do not answer at all: no gold, no pages, ``absent`` instead."""
GOLD_RANGE = (2, 5)
"""How many gold phrases a question of any other kind has (the first sets have up to 5; later briefs ask 2-3)."""


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    data = json.loads(path.read_text())
    out = [
        Question(
            q["id"],
            q["type"],
            q["question"],
            list(q["gold"]),
            list(q.get("pages", [])),
            list(q.get("warning", [])),
            list(q.get("uncovered", [])),
            list(q.get("halves", [])),
            list(q.get("absent", [])),
        )
        for q in data["questions"]
    ]
    ids = [q.id for q in out]
    if len(set(ids)) != len(ids):
        raise SystemExit("research_quality: duplicate question ids in the question set")
    return out


def html_text(raw: str) -> str:
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", " ", raw))


def raw_texts(folder: Path) -> list[str]:
    """The corpus files' own text (HTML without tags, Markdown as is; PDFs have none without an extractor)."""
    texts = [html_text(p.read_text(errors="replace")) for p in sorted(folder.rglob("*.html"))]
    return texts + [p.read_text(errors="replace") for p in sorted(folder.rglob("*.md"))]


def kind_problem(q: Question) -> str | None:
    """What is wrong with a question's gold for its kind, or None: a ``none`` question has no gold and no pages and
    names what is ``absent``; any other has ``GOLD_RANGE`` gold phrases and no ``absent``."""
    if q.type == NONE_KIND:
        if q.gold or q.pages:
            return "a none question has no gold and no pages (the docs do not answer it)"
        if not [a for a in q.absent if a.strip()]:
            return "a none question names what the docs do not say in 'absent'"
        return None
    least, most = GOLD_RANGE
    if not least <= len(q.gold) <= most:
        return f"{len(q.gold)} gold phrases; a {q.type} question has {least}-{most} (only a none question has none)"
    if q.absent:
        return "'absent' belongs to none questions only"
    return None


def check_gold(db: Path, folder: Path, questions: list[Question]) -> int:
    """Every gold and warning phrase must be in the ingested passages (else at least in the raw text); each question
    has the gold its kind needs (``kind_problem``)."""
    corpus = open_corpus(db)
    try:
        passages = "|".join(qm.normalise(t) for t in all_passage_texts(corpus))
    finally:
        corpus.close()
    pages = "|".join(qm.normalise(t) for t in raw_texts(folder))
    missing = raw_only = total = misshapen = 0
    for q in questions:
        if problem := kind_problem(q):
            misshapen += 1
            print(f"{q.id}: {problem}")
        for kind, phrase in [("gold", p) for p in q.gold] + [("warning", p) for p in q.warning]:
            total += 1
            norm = qm.normalise(phrase)
            words = len(phrase.split())
            if norm in qm.normalise(q.question):
                status, missing = "IN THE QUESTION (a report echoing the question would match it)", missing + 1
            elif norm in passages:
                status = "ok"
            elif norm in pages:
                status, raw_only = "only in the raw files (split across passages or dropped by ingest)", raw_only + 1
            else:
                status, missing = "MISSING", missing + 1
            if status != "ok" or not 3 <= words <= 14:
                print(f"{q.id}: {kind} {phrase!r} ({words} words): {status}")
    found = total - missing - raw_only
    print(f"gold and warning phrases: {total}, in passages: {found}, only in raw files: {raw_only}, missing: {missing}")
    nones = sum(q.type == NONE_KIND for q in questions)
    if nones or misshapen:
        print(
            f"none questions (no gold, what is absent named): {nones}, questions whose gold does not fit their kind: "
            f"{misshapen}"
        )
    return 1 if missing or raw_only or misshapen else 0


QUESTION_OVERLAP = 5
"""A question may share at most this many consecutive words with any passage of its corpus (issue 29)."""


def check_questions(db: Path, questions: list[Question], limit: int = QUESTION_OVERLAP) -> int:
    """Questions must be in a user's words: none shares more than ``limit`` consecutive words with a passage."""
    corpus = open_corpus(db)
    try:
        passages = "|".join(qm.normalise(t) for t in all_passage_texts(corpus))
    finally:
        corpus.close()
    failed = 0
    for q in questions:
        shared = qm.longest_shared_run(q.question, passages)
        if len(shared) > limit:
            failed += 1
            print(f"{q.id}: shares {len(shared)} consecutive words with a passage: {' '.join(shared)!r}")
    print(f"questions: {len(questions)}, sharing more than {limit} consecutive words with a passage: {failed}")
    return 1 if failed else 0


# -- running a question in a worker with a deadline --------------------------------------------


def answer(corpus: Any, mode: str, question: str) -> dict[str, Any]:
    """One question in one mode: its output text and claims with their cited sources."""
    t0 = time.perf_counter()
    if mode.startswith("deepr"):
        report, cited = deepr_report(corpus, question, mode.removeprefix("deepr").strip() or "lexical")
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
    """One process per corpus answering one question at a time; killed (and restarted) at a deadline."""

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
    warned = qm.gold_found(output, q.warning)
    dups = qm.duplicate_flags([c["text"] for c in claims])
    furniture = [qm.is_furniture(c["text"], [tuple(s) for s in c["sources"]]) for c in claims]
    return {
        "id": q.id,
        "type": q.type,
        "question": q.question,
        "error": result.get("error"),
        "seconds": result.get("seconds", 0.0),
        "answerable": q.answerable,
        "hit": any(found),
        "recall": sum(found) / len(found) if found else 0.0,
        "gold_found": [p for p, f in zip(q.gold, found, strict=True) if f],
        "gold_missed": [p for p, f in zip(q.gold, found, strict=True) if not f],
        "unsafe": bool(q.warning) and not any(warned),
        "has_warning": bool(q.warning),
        "answer_gold": qm.answer_holds_gold(output, q.gold + q.warning) if q.answerable else None,
        "answer_opens": qm.answer_opens_with_gold(output, q.gold + q.warning) if q.answerable else None,
        "gaps_contradicting": qm.gaps_contradicting(output),
        "unasked_parts": qm.unasked_parts(output, q.question),
        "uncovered": len(q.uncovered),
        "uncovered_named": sum(qm.uncovered_named(output, part) for part in q.uncovered),
        "covered_halves": len(q.halves),
        "halves_gapped": sum(qm.covered_half_gapped(output, half) for half in q.halves),
        "gaps_when_found": qm.gaps_when_found(output, any(found), bool(q.uncovered)) if q.answerable else None,
        "none": q.type == NONE_KIND,
        "none_admitted": q.type == NONE_KIND and qm.admits_no_answer(output),
        "pdf_artefact_claims": [c["text"] for c in claims if qm.pdf_artefacts(c["text"])],
        "claims": len(claims),
        "duplicate_claims": [c["text"] for c, d in zip(claims, dups, strict=True) if d],
        "furniture_claims": [c["text"] for c, f in zip(claims, furniture, strict=True) if f],
        "words": len(output.split()),
        "output": output,
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, float]:
    """A mode's figures over a corpus's rows; hit and recall over the questions the docs answer (a ``none`` question
    has no gold: NaN when no question has any), none admitted over the ``none`` ones."""
    n = len(rows)
    answerable = [r for r in rows if r.get("answerable", True)]
    nones = [r for r in rows if r.get("none")]
    claims = sum(r["claims"] for r in rows)
    duplicates = sum(len(r["duplicate_claims"]) for r in rows)
    furniture = sum(len(r["furniture_claims"]) for r in rows)
    safety = [r for r in rows if r["has_warning"]]
    seconds = [r["seconds"] for r in rows]  # a timeout counts with the time it took to give up
    answers = [r["answer_gold"] for r in rows if r.get("answer_gold") is not None]  # reports, not search's top 5
    openings = [r["answer_opens"] for r in rows if r.get("answer_opens") is not None]
    reports = [r for r in rows if r.get("answer_gold") is not None]
    found = [r["gaps_when_found"] for r in reports if r.get("gaps_when_found") is not None]
    return {
        "questions": n,
        "hit": statistics.mean(r["hit"] for r in answerable) if answerable else float("nan"),
        "recall": statistics.mean(r["recall"] for r in answerable) if answerable else float("nan"),
        "answerable_n": len(answerable),
        "unsafe": sum(r["unsafe"] for r in safety) / len(safety) if safety else float("nan"),
        "unsafe_n": sum(r["unsafe"] for r in safety),
        "safety_n": len(safety),
        "answer_gold": statistics.mean(answers) if answers else float("nan"),
        "answer_opens": statistics.mean(openings) if openings else float("nan"),
        "gaps_contradicting": sum(len(r["gaps_contradicting"]) for r in rows),
        "unasked_parts": sum(len(r.get("unasked_parts", [])) for r in rows),
        "uncovered_n": sum(r.get("uncovered", 0) for r in rows),
        "uncovered_named": sum(r.get("uncovered_named", 0) for r in rows),
        "covered_halves": sum(r.get("covered_halves", 0) for r in rows),
        "halves_gapped": sum(r.get("halves_gapped", 0) for r in rows),
        "found_n": len(found),
        "gapped_when_found": sum(found),
        "none_n": len(nones),
        "none_admitted": sum(r["none_admitted"] for r in nones),
        "pdf_artefacts": sum(len(r.get("pdf_artefact_claims", [])) for r in rows),
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


# -- tables ------------------------------------------------------------------------------------

NA = "n/a"


def measured(value: float) -> bool:
    """Whether a figure was measured (NaN where no question could give it: recall over ``none`` questions only)."""
    return not math.isnan(value)


def corpus_table(summaries: dict[str, dict[str, float] | None]) -> str:
    """One corpus: a row per mode (``n/a`` where the product lacks the mode), a column per metric."""
    base = summaries.get(BASELINE)
    out = [
        "| mode | hit | recall | vs top-5 | unsafe | answer holds gold | answer opens with gold | gaps contradicting "
        "| unasked parts "
        "| uncovered parts named | covered halves called gaps | gaps when found | none admitted "
        "| PDF artefacts in claims | duplicate | furniture | s/question mean | p95 | errors |",
        "|---|" + "---:|" * 18,
    ]
    for mode in MODES:
        s = summaries.get(mode)
        if s is None:
            out.append(f"| {mode} |" + f" {NA} |" * 18)
            continue
        ratio = f"{s['recall'] / base['recall']:.2f}x" if base and base["recall"] and measured(s["recall"]) else NA
        unsafe = f"{s['unsafe']:.2f} ({s['unsafe_n']:.0f} of {s['safety_n']:.0f})" if s["safety_n"] else NA
        cells = [
            f"{s['hit']:.2f}" if measured(s["hit"]) else NA,
            f"{s['recall']:.2f}" if measured(s["recall"]) else NA,
            ratio,
            unsafe,
            NA if math.isnan(s.get("answer_gold", math.nan)) else f"{s['answer_gold']:.2f}",
            NA if math.isnan(s.get("answer_opens", math.nan)) else f"{s['answer_opens']:.2f}",
            f"{s['gaps_contradicting']:.0f}",
            f"{s.get('unasked_parts', 0):.0f}",
            f"{s.get('uncovered_named', 0):.0f} of {s.get('uncovered_n', 0):.0f}" if s.get("uncovered_n") else NA,
            f"{s.get('halves_gapped', 0):.0f} of {s.get('covered_halves', 0):.0f}" if s.get("covered_halves") else NA,
            f"{s.get('gapped_when_found', 0):.0f} of {s.get('found_n', 0):.0f}" if s.get("found_n") else NA,
            f"{s.get('none_admitted', 0):.0f} of {s.get('none_n', 0):.0f}" if s.get("none_n") else NA,
            f"{s.get('pdf_artefacts', 0):.0f} of {s['claims_n']:.0f}",
            f"{s['duplicate']:.2f}",
            f"{s['furniture']:.2f}",
            f"{s['mean_s']:.2f}",
            f"{s['p95_s']:.2f}",
            f"{s['errors']:.0f}",
        ]
        out.append(f"| {mode} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def summary_table(per_corpus: dict[str, dict[str, dict[str, float] | None]]) -> str:
    """Every corpus on a line: questions, then recall (hit rate) per mode; the last line averages the
    corpora (each corpus counts once, whatever its number of questions)."""
    out = ["| corpus | questions | " + " | ".join(f"{m} recall (hit)" for m in MODES) + " |"]
    out.append("|---|---:|" + "---:|" * len(MODES))
    for name, summaries in per_corpus.items():
        n = max((int(s["questions"]) for s in summaries.values() if s), default=0)
        cells = [
            NA if s is None or not measured(s["recall"]) else f"{s['recall']:.2f} ({s['hit']:.2f})"
            for s in (summaries.get(m) for m in MODES)
        ]
        out.append(f"| {name} | {n} | " + " | ".join(cells) + " |")
    if len(per_corpus) > 1:
        cells = []
        for m in MODES:
            ran = [c[m] for c in per_corpus.values() if c.get(m) and measured(c[m]["recall"])]  # type: ignore[index]
            if len(ran) < len(per_corpus):
                cells.append(NA)
                continue
            recall = statistics.mean(s["recall"] for s in ran)  # type: ignore[index]
            hit = statistics.mean(s["hit"] for s in ran)  # type: ignore[index]
            cells.append(f"{recall:.2f} ({hit:.2f})")
        total = sum(max((int(s["questions"]) for s in c.values() if s), default=0) for c in per_corpus.values())
        out.append(f"| mean of corpora | {total} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def show(q: Question, scored: dict[str, dict[str, Any]]) -> None:
    print(f"\n{'=' * 100}\n## {q.id} ({q.type}): {q.question}\n")
    for mode, r in scored.items():
        print(f"### {mode}: recall {r['recall']:.2f}, {r['claims']} claims, {r['seconds']:.2f} s")
        if r["error"]:
            print(f"ERROR: {r['error']}")
        print(f"\n{r['output'].rstrip()}\n")
        print(f"gold found: {r['gold_found']}")
        print(f"gold MISSED: {r['gold_missed']}")
        if r["unsafe"]:
            print(f"UNSAFE: none of the warnings {q.warning}")
        for line in r["gaps_contradicting"]:
            print(f"gap contradicting the answer: {line}")
        for part in r.get("unasked_parts", []):
            print(f"part the asker did not ask: {part}")
        for claim in r.get("pdf_artefact_claims", []):
            print(f"claim with a PDF artefact: {claim}")
        print()


# -- main --------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.research_quality", description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default="all", choices=["all", *CORPORA], help="which corpus (default all)")
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--set",
        choices=QUESTION_SETS,
        help=set_help(),
    )
    which.add_argument("--heldout", action="store_true", help="alias of --set heldout")
    which.add_argument("--fresh", action="store_true", help="alias of --set fresh")
    p.add_argument("--limit", type=int, help="only the first N questions of each corpus")
    p.add_argument("--only", action="append", default=[], metavar="ID", help="only this question (repeatable)")
    p.add_argument(
        "--modes",
        default=",".join(MODES),
        help=f"comma-separated modes to run (default all: {', '.join(MODES)}); those the product lacks print n/a",
    )
    p.add_argument("--show", action="store_true", help="print every report/baseline and the gold phrases it missed")
    p.add_argument("--json", type=Path, metavar="PATH", help="write per-question results and summaries here")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per question and mode (default 60)")
    p.add_argument("--max-minutes", type=float, default=60.0, help="wall-clock cap for the whole run (default 60)")
    p.add_argument("--reindex", action="store_true", help="ingest the corpus again even if cached")
    p.add_argument("--check-gold", action="store_true", help="verify the gold/warning phrases occur in the corpus")
    p.add_argument(
        "--check-questions",
        action="store_true",
        help=f"verify no question shares more than {QUESTION_OVERLAP} consecutive words with a passage of its corpus",
    )
    p.add_argument("--questions", type=Path, help="another question set (JSON, as the default; one corpus only)")
    p.add_argument(
        "--summed",
        nargs="+",
        type=Path,
        metavar="JSON",
        help="run nothing: print the tables over the rows of these --json files (several sets' runs, one table)",
    )
    p.add_argument(
        "--cold-vectors",
        action="store_true",
        help="forget the passage vectors stored by earlier runs first (measures embedding the corpus again)",
    )
    args = p.parse_args(argv)
    args.set = args.set or ("heldout" if args.heldout else "fresh" if args.fresh else "tuned")
    args.heldout, args.fresh = args.set == "heldout", args.set == "fresh"  # the aliases agree with --set
    if args.questions and args.corpus == "all":
        p.error("--questions needs one --corpus")
    unknown = set(args.modes.split(",")) - set(MODES)
    if unknown:
        p.error(f"unknown mode(s) {', '.join(sorted(unknown))}; allowed: {', '.join(MODES)}")
    return args


def embed_corpus(db: Path, *, cold: bool) -> None:
    """Give every passage of the cached corpus its vector (resumable: only what is missing is embedded)."""
    from deepr_mcp.embedding import shared_embedder
    from deepr_mcp.research.corpus.backfill import embed_pending

    corpus = open_corpus(db)
    try:
        if cold:
            print(f"forgot {corpus.forget_embeddings():,} stored passage vectors", file=sys.stderr)
        cpu, wall = time.process_time(), time.perf_counter()
        done = embed_pending(corpus, shared_embedder("minilm"))
        if done:
            seconds, cpu_s = time.perf_counter() - wall, time.process_time() - cpu
            print(f"embedded {done:,} passages in {seconds:.0f} s ({cpu_s:.0f} CPU-s)", file=sys.stderr)
    finally:
        corpus.close()


def question_file(spec: CorpusSpec, args: argparse.Namespace) -> Path:
    """The question set asked for: ``--questions``, else the corpus's file of ``--set`` (tuned by default)."""
    if args.questions:
        return args.questions
    return spec.question_set(args.set)


def set_kind(args: argparse.Namespace) -> str:
    """The set's name as the tables print it."""
    return "held-out" if args.set == "heldout" else args.set


def select_questions(spec: CorpusSpec, args: argparse.Namespace) -> list[Question]:
    questions = load_questions(question_file(spec, args))
    if args.only:
        questions = [q for q in questions if q.id in args.only]
    return questions[: args.limit] if args.limit else questions


def progress(row: dict[str, Any]) -> str:
    """A question's figure on its progress line: its recall, or for a ``none`` question whether the report admits it."""
    if row.get("none"):
        return "none admitted" if row["none_admitted"] else "none NOT admitted"
    return f"{row['recall']:.2f}"


def run_corpus(
    spec: CorpusSpec, db: Path, questions: list[Question], modes: list[str], deadline: float, args: argparse.Namespace
) -> tuple[dict[str, list[dict[str, Any]]], int]:
    """Every question in every runnable mode, one worker for the corpus; returns rows per mode and the
    number of questions the wall-clock cap left out."""
    worker = Worker(db)
    results: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
    try:
        for index, q in enumerate(questions, start=1):
            if deadline - time.monotonic() <= 1:
                left = len(questions) - index + 1
                print(
                    f"{spec.name}: wall-clock cap of {args.max_minutes:g} min: {left} questions not run",
                    file=sys.stderr,
                )
                return results, left
            scored = {}
            for mode in modes:
                result = worker.ask(mode, q.question, min(args.timeout, max(1.0, deadline - time.monotonic())))
                scored[mode] = score(q, result)
                results[mode].append(scored[mode])
            line = ", ".join(f"{m} {progress(r)} ({r['seconds']:.1f} s)" for m, r in scored.items())
            errors = [f"{m}: {r['error']}" for m, r in scored.items() if r["error"]]
            print(
                f"[{spec.name} {index}/{len(questions)}] {q.id}: recall {line}" + (f" {errors}" if errors else ""),
                file=sys.stderr,
            )
            if args.show:
                show(q, scored)
    finally:
        worker.stop()
    return results, 0


def with_the_set(specs: list[CorpusSpec], args: argparse.Namespace) -> list[CorpusSpec]:
    """The corpora that have the chosen set (all of them with ``--questions``); a line on stderr for each skipped."""
    return specs if args.questions else having(specs, [args.set])


def summed(paths: list[Path]) -> dict[str, dict[str, dict[str, float] | None]]:
    """Per corpus and mode, the figures over every row of several runs' ``--json`` files (sets run one by one)."""
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for path in paths:
        for name, corpus in json.loads(path.read_text())["corpora"].items():
            for mode, results in corpus["results"].items():
                rows.setdefault(name, {}).setdefault(mode, []).extend(results)
    return {name: {m: summarise(by[m]) if by.get(m) else None for m in MODES} for name, by in rows.items()}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.summed:
        per_corpus = summed(args.summed)
        for name, summaries in per_corpus.items():
            print(f"\n### {name}: {len(args.summed)} runs summed\n\n{corpus_table(summaries)}")
        print(f"\n### Summary\n\n{summary_table(per_corpus)}")
        return 0
    chosen = list(CORPORA.values()) if args.corpus == "all" else [CORPORA[args.corpus]]
    specs = with_the_set(chosen, args)
    if not specs:
        raise SystemExit(f"research_quality: no corpus chosen has the {args.set!r} question set")
    retrieval = supported_retrieval()
    wanted = args.modes.split(",")
    modes = [m for m in wanted if m == BASELINE or m.removeprefix("deepr ") in retrieval]
    missing = [m for m in wanted if m not in modes]
    if missing:
        print(f"not offered by this deepr_mcp (n/a in the tables): {', '.join(missing)}", file=sys.stderr)
    question_sets = {spec.name: select_questions(spec, args) for spec in specs}
    if args.only:
        unknown = set(args.only) - {q.id for qs in question_sets.values() for q in qs}
        if unknown:
            raise SystemExit(f"research_quality: unknown question id(s): {', '.join(sorted(unknown))}")
    if args.check_gold or args.check_questions:
        failed = 0
        for spec in specs:
            folder = find_corpus(spec)
            db = ready_corpus(folder, reindex=args.reindex, spec=spec)
            print(f"## {spec.name}")
            if args.check_gold:
                failed |= check_gold(db, folder, question_sets[spec.name])
            if args.check_questions:
                failed |= check_questions(db, question_sets[spec.name])
        return failed

    deadline = time.monotonic() + args.max_minutes * 60
    started = time.perf_counter()
    per_corpus: dict[str, dict[str, dict[str, float] | None]] = {}
    payload: dict[str, Any] = {"set": args.set, "heldout": args.heldout, "fresh": args.fresh, "modes": MODES}
    payload["offered"] = modes
    payload["corpora"] = {}
    for spec in specs:
        questions = question_sets[spec.name]
        if not questions:
            continue
        folder = find_corpus(spec)
        db = ready_corpus(folder, reindex=args.reindex, spec=spec)
        if any(m in modes for m in ("deepr semantic", "deepr hybrid")):
            embed_corpus(db, cold=args.cold_vectors)
        results, skipped = run_corpus(spec, db, questions, modes, deadline, args)
        ran = len(next(iter(results.values()), []))
        summaries = {m: (summarise(results[m]) if results.get(m) else None) for m in MODES}
        per_corpus[spec.name] = summaries
        kind = set_kind(args)
        print(
            f"\n### {spec.name} ({spec.generator}, {spec.name} {package_version(spec)}): {ran} {kind} questions", end=""
        )
        print(f" ({skipped} not run: wall-clock cap)\n" if skipped else "\n")
        print(corpus_table(summaries))
        payload["corpora"][spec.name] = {
            "generator": spec.generator,
            "version": package_version(spec),
            "db": str(db),
            "skipped": skipped,
            "summaries": summaries,
            "questions": [asdict(q) for q in questions],
            "results": results,
        }
    if not per_corpus:
        print("no question was run", file=sys.stderr)
        return 1
    print(f"\n### Summary ({set_kind(args)} sets), {time.perf_counter() - started:.0f} s in all\n")
    print(summary_table(per_corpus))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2, ensure_ascii=False, default=str))
        print(f"\nresults: {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
