"""The MiniLM re-ranker's cost on this machine, printed as a table (medians of a few runs).

Run: ``.venv/bin/python -m bench.rerank`` (needs the embed extra; a few minutes on 2 cores).
Each run is a fresh process, because the model loads once per process: it measures the load,
RSS added by torch + the model + a filled cache, passages/second encoded in batches, and the
milliseconds to re-rank a pool of 30 passages (``rerank()`` with BM25 scores) when all 31 texts
are new (cold) and when the passages were embedded before and only the query is (warm: the
engine re-ranking an overlapping pool for the next sub-question), for the float model (the
default) and its int8 copy (``MiniLMReranker(quantized=True)``). Passages are real text: the
bundled sample corpus, README and docs chunked by the corpus itself (~700 characters each).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POOL = 30


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def real_passages(n: int) -> list[str]:
    """``n`` distinct passages (so each is a cache miss), chunked from real documents."""
    from deepr_mcp.research.corpus.storage import Corpus
    from deepr_mcp.research.samples import SAMPLE_CORPUS

    with tempfile.TemporaryDirectory() as tmp:
        corpus = Corpus(Path(tmp) / "bench.db")
        for path in [SAMPLE_CORPUS, ROOT / "README.md", ROOT / "docs"]:
            if path.exists():
                corpus.add_path(path)
        texts = [p.text for p in corpus.iter_passages()]
        corpus.close()
    if not texts:
        raise SystemExit("no passages found to embed")
    return [texts[i % len(texts)] + ("" if i < len(texts) else f" ({i})") for i in range(n)]


def one_run(passages: int, repeats: int, quantized: bool) -> dict[str, float]:
    texts = real_passages(passages + POOL * (repeats + 1))
    before = rss_mb()
    from deepr_mcp.research.retrieval.rerank import MiniLMReranker, make_reranker, rerank

    started = time.perf_counter()
    reranker = make_reranker("minilm")
    assert isinstance(reranker, MiniLMReranker)
    if quantized:
        reranker = MiniLMReranker(quantized=True)
    reranker.load()
    load_s = time.perf_counter() - started

    reranker.embed(["warm-up so one-off allocations are not billed to the timing"])
    batch = texts[:passages]
    started = time.perf_counter()
    reranker.embed(batch)
    per_second = len(batch) / (time.perf_counter() - started)

    cold, warm = [], []
    pools = [texts[passages + POOL * i : passages + POOL * (i + 1)] for i in range(repeats)]
    lexical = [float(POOL - i) for i in range(POOL)]
    for i, pool in enumerate(pools):
        started = time.perf_counter()
        rerank(reranker, f"cold question number {i} about cable faults", pool, lexical)
        cold.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        rerank(reranker, f"warm question number {i} about repair ships", pool, lexical)
        warm.append((time.perf_counter() - started) * 1000)
    return {
        "load_s": load_s,
        "passages_per_s": per_second,
        "cold_ms": statistics.median(cold),
        "warm_ms": statistics.median(warm),
        "rss_added_mb": rss_mb() - before,
        "chars_per_passage": statistics.mean(len(t) for t in batch),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes; the table shows medians")
    parser.add_argument("--passages", type=int, default=256, help="passages encoded for the throughput figure")
    parser.add_argument("--repeats", type=int, default=5, help="30-passage re-ranks per run (cold and warm each)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--quantized", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(one_run(args.passages, args.repeats, args.quantized)))
        return

    from deepr_mcp.research.retrieval.rerank import missing_extra

    if missing_extra():
        raise SystemExit("needs the embed extra: pip install 'deepr-mcp[embed]'")
    variants = {"float32 (default)": False, "int8 (quantized=True)": True}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    for i in range(args.runs):
        for name, quantized in variants.items():  # interleaved, so load from elsewhere hits both alike
            command = [sys.executable, "-m", "bench.rerank", "--child", f"--passages={args.passages}"]
            command += [f"--repeats={args.repeats}"] + (["--quantized"] if quantized else [])
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise SystemExit(f"run {i + 1} ({name}) failed:\n{done.stderr[-3000:]}")
            runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(f"run {i + 1}/{args.runs} {name}: {runs[name][-1]}", file=sys.stderr)

    def med(name: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[name])

    def row(label: str, key: str, fmt: str) -> None:
        print(f"| {label} | " + " | ".join(format(med(name, key), fmt) for name in variants) + " |")

    chars = med(next(iter(variants)), "chars_per_passage")
    cached = args.passages + (POOL + 2) * args.repeats + 1
    print(f"MiniLM re-ranker (all-MiniLM-L6-v2, CPU, {os.cpu_count()} cores), median of {args.runs} fresh processes")
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("| measure | " + " | ".join(variants) + " |")
    print("|---|" + "---:|" * len(variants))
    row(f"passages/second encoded (batches of 32, ~{chars:.0f} chars each)", "passages_per_s", ",.0f")
    row(f"ms per re-rank of {POOL} passages, all new (cold)", "cold_ms", ",.0f")
    row(f"ms per re-rank of {POOL} passages, cached, new query only (warm)", "warm_ms", ",.0f")
    row("model load, seconds (import torch + sentence-transformers + weights)", "load_s", ".1f")
    row(f"RSS added, MB (libraries + model + ~{cached} cached embeddings)", "rss_added_mb", ",.0f")


if __name__ == "__main__":
    main()
