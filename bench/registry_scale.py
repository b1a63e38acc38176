"""Registry build and search at catalogue scale: BM25 alone, fused with meaning, and rank_bm25 before.

Run: ``timeout 900 .venv/bin/python -m bench.registry_scale`` (two to three minutes; most of it is
the rank_bm25 baseline and the query embeddings); ``--sizes 200,10000 --no-recall`` for the
latency targets alone. Prints markdown tables:

1. Build (register + tokenise + index) and search p50/p95 over 200 / 1,000 / 10,000 / 50,000
   synthetic tools (``bench.gateway.synthetic``), 300 distinct random queries each, for:
   the registry by words only (BM25, ``research.embedder = none``); the registry fused with
   meaning (BM25 + MiniLM, scores fused, ``MEANING_WEIGHT``), the query embedded by the real packaged
   model on every search (distinct queries: the query cache never answers); and rank_bm25
   (``BM25Okapi``, the registry before) from 1,000 tools, fewer queries at 50,000. The fused rows'
   tool vectors are random unit vectors put straight into ``ToolVectors`` (embedding 10,000
   synthetic tools would take minutes and time nothing of the query path: a search's cost does
   not depend on the vectors' values); then the newest 200 of those queries again, their vectors
   in the query cache: the search path without the model. Wall p50/p95 and CPU ms per query (process time: the
   model's threads included) because wall time on a shared machine is noisy. Then fused search at 200
   tools while the same embedder embeds passages in another thread, as a corpus backfill does.
2. Recall@1 / Recall@3 on ``bench/queries.py`` over the real catalogue: BM25, by meaning and fused
   with tool vectors embedded for real, and the rank_bm25 ranking before.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import threading
import time
from collections.abc import Callable

import numpy as np
from rank_bm25 import BM25Okapi

from bench.gateway import WORDS, percentile, synthetic
from bench.queries import QUERIES
from deepr_mcp.embedding import shared_embedder
from deepr_mcp.gateway import ToolRegistry, ToolSpec
from deepr_mcp.gateway.registry import document_tokens
from deepr_mcp.gateway.vectors import ToolVectors, text_key, tool_text
from deepr_mcp.text.tokenizer import expand_query, tokenize
from deepr_mcp.tools import all_tools

SIZES = (200, 1_000, 10_000, 50_000)


class LuceneBM25(BM25Okapi):
    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))


class RankBM25Registry:
    """The registry's search as it was: rank_bm25 scores, sorted in Python."""

    def __init__(self, specs: list[ToolSpec]) -> None:
        self.order = sorted(s.name for s in specs)
        by_name = {s.name: s for s in specs}
        self.index = LuceneBM25([document_tokens(by_name[n]) or ["_"] for n in self.order])

    def search(self, query: str, limit: int = 3) -> list[str]:
        terms = expand_query(tokenize(query))
        if not terms:
            return []
        scores = self.index.get_scores(terms)
        ranked = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], self.order[i]))
        return [self.order[i] for i in ranked[:limit]]


Row = tuple[int, str, float, float, float, float, int]


def timed(search: Callable[[str], object], queries: list[str]) -> tuple[float, float, float]:
    """Wall p50 and p95 (ms) and mean process CPU ms per query."""
    samples = []
    cpu = time.process_time()
    for query in queries:
        t0 = time.perf_counter()
        search(query)
        samples.append((time.perf_counter() - t0) * 1000)
    cpu_ms = (time.process_time() - cpu) * 1000 / len(queries)
    return statistics.median(samples), percentile(samples, 0.95), cpu_ms


def with_random_vectors(specs: list[ToolSpec], vectors: ToolVectors, seed: int) -> None:
    rows = np.random.default_rng(seed).standard_normal((len(specs), vectors.embedder.dimensions)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    vectors.add([text_key(tool_text(s)) for s in specs], rows)


def scale(sizes: tuple[int, ...] = SIZES) -> list[Row]:
    rows: list[Row] = []
    rng = random.Random(11)
    embedder = shared_embedder("minilm")
    embedder.embed(["load the model before timing"], query=True)
    for n in sizes:
        specs = synthetic(n)
        queries = list(dict.fromkeys(" ".join(rng.choices(WORDS, k=rng.randint(2, 5))) for _ in range(320)))[:300]
        start = time.perf_counter()
        registry = ToolRegistry()
        registry.register_many(specs)
        registry.search("warm up the index")  # registration is lazy; the first search builds
        build = time.perf_counter() - start
        p50, p95, cpu = timed(lambda q: registry.search(q, 3), queries)  # noqa: B023 - used at once
        rows.append((n, "BM25 only (today; embedder none)", build, p50, p95, cpu, len(queries)))
        vectors = ToolVectors(embedder)  # no cache file, no worker: the vectors are put in below
        with_random_vectors(specs, vectors, n)
        start = time.perf_counter()
        fused = ToolRegistry(specs, vectors=vectors)  # every tool has its vector: nothing is queued
        fused.search("warm up the index and the rows")
        build = time.perf_counter() - start
        p50, p95, cpu = timed(lambda q: fused.search(q, 3), queries)  # noqa: B023 - used at once
        rows.append((n, "fused: BM25 + MiniLM, query embedded", build, p50, p95, cpu, len(queries)))
        again = queries[-200:]  # the query cache keeps the newest 256: these are all in it
        p50, p95, cpu = timed(lambda q: fused.search(q, 3), again)  # noqa: B023 - used at once
        rows.append((n, "fused, a query asked before (its vector cached)", 0.0, p50, p95, cpu, len(again)))
        if n < 1_000:
            continue
        start = time.perf_counter()
        baseline = RankBM25Registry(specs)
        build = time.perf_counter() - start
        few = queries[: 300 if n <= 10_000 else 40]
        p50, p95, cpu = timed(lambda q: baseline.search(q, 3), few)  # noqa: B023 - used at once
        rows.append((n, "rank_bm25 BM25Okapi (before)", build, p50, p95, cpu, len(few)))
    return rows


def while_embedding(n: int = 200, count: int = 60) -> tuple[float, float, float, float]:
    """Fused search p50/p95/max wall ms and CPU ms per query while the same embedder embeds passages
    in another thread, batches of 64 as a corpus backfill does (the server shares one embedder)."""
    rng = random.Random(5)
    embedder = shared_embedder("minilm")
    specs = synthetic(n)
    vectors = ToolVectors(embedder)
    with_random_vectors(specs, vectors, n)
    registry = ToolRegistry(specs, vectors=vectors)
    registry.search("warm up the index and the rows")
    passages = [" ".join(rng.choices(WORDS, k=rng.randint(60, 120))) for _ in range(64)]
    stop = threading.Event()

    def backfill() -> None:
        while not stop.is_set():
            embedder.embed(passages)

    worker = threading.Thread(target=backfill, daemon=True)
    worker.start()
    try:
        embedder.embed(passages[:8])  # the backfill thread is under way
        queries = list(dict.fromkeys(" ".join(rng.choices(WORDS, k=rng.randint(2, 5))) for _ in range(2 * count)))
        samples = []
        for query in queries[:count]:
            t0 = time.perf_counter()
            registry.search(query, 3)
            samples.append((time.perf_counter() - t0) * 1000)
    finally:
        stop.set()
        worker.join()
    return statistics.median(samples), percentile(samples, 0.95), max(samples), float(len(samples))


def recall() -> list[tuple[str, float, float, int]]:
    specs = all_tools()
    pairs = [(tool, q) for tool, queries in QUERIES.items() for q in queries]
    vectors = ToolVectors(shared_embedder("minilm"))
    now = ToolRegistry(specs, vectors=vectors)
    vectors.wait_idle(timeout=600)
    before = RankBM25Registry(specs)
    rankings = {
        "BM25 + destructive step-back (today)": "lexical",
        "by meaning (MiniLM cosine)": "semantic",
        "fused: BM25 + MiniLM + step-back": "hybrid",
    }
    results = {
        label: [[h.name for h in now.search(q, 3, mode=mode)] for _, q in pairs] for label, mode in rankings.items()
    }  # type: ignore[arg-type]
    results["rank_bm25 ranking before"] = [before.search(q, 3) for _, q in pairs]

    def at(found: list[list[str]], k: int) -> float:
        return sum(tool in r[:k] for (tool, _), r in zip(pairs, found, strict=True)) / len(pairs)

    return [(label, at(found, 1), at(found, 3), len(pairs)) for label, found in results.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="tool counts, comma-separated")
    parser.add_argument("--no-recall", action="store_true", help="the scale table only")
    args = parser.parse_args()
    print("### Registry at catalogue scale (synthetic tools)\n")
    print("| tools | index | build s | search p50 ms | search p95 ms | CPU ms/query | queries |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for n, name, build, p50, p95, cpu, count in scale(tuple(int(n) for n in args.sizes.split(","))):
        print(f"| {n:,} | {name} | {build:.2f} | {p50:.3f} | {p95:.3f} | {cpu:.3f} | {count} |")
    p50, p95, worst, count = while_embedding()
    print("\n### Search while the shared embedder embeds passages (a corpus backfill, batches of 64)\n")
    print("| tools | search p50 ms | search p95 ms | max ms | queries |\n|---:|---:|---:|---:|---:|")
    print(f"| 200 | {p50:.1f} | {p95:.1f} | {worst:.0f} | {count:.0f} |")
    if args.no_recall:
        return
    print(f"\n### Recall on bench/queries.py ({len(all_tools())} real tools)\n")
    print("| ranking | Recall@1 | Recall@3 | queries |\n|---|---:|---:|---:|")
    for name, r1, r3, count in recall():
        print(f"| {name} | {r1:.3f} | {r3:.3f} | {count} |")


if __name__ == "__main__":
    main()
