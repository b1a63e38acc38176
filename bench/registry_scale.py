"""tool_search at catalogue scale: p95 and CPU per query, new and repeated queries, before and after.

Run: ``timeout 900 .venv/bin/python -m bench.registry_scale --sizes 200,10000 --no-recall`` (a minute);
add ``--before TREE`` (a checkout of the code to compare, e.g. ``git archive 69f6f89 | tar -x -C
/tmp/before``) to measure that code the same way in a subprocess and print both side by side.
Prints markdown tables:

1. Build (register + tokenise + index) and ``tool_search`` p50/p95 over synthetic tools
   (``bench.gateway.synthetic``), through ``Gateway.search`` as the server runs it (arguments
   validated, ranked, the JSON answer written; only the transport is left out), for: BM25 alone
   (``research.embedder = none``); fused with meaning, each query new (300 distinct random queries:
   the query's vector is embedded by the real packaged model on every search); the same fused
   search for queries asked before (their vectors cached, as when an agent repeats itself); and
   rank_bm25 (``BM25Okapi``, the registry before the numpy index) from 1,000 tools. The fused rows'
   tool vectors are random unit vectors put straight into ``ToolVectors`` (embedding 10,000 synthetic
   tools would take minutes and time nothing of the query path: a search costs the same whatever
   the vectors' values). Wall p50/p95 and CPU ms per query (process time, the model's threads
   included): on a shared machine wall time mostly measures waiting for a core, CPU is the steadier
   figure. ``uptime``'s load is printed with each run. Then the same new and repeated queries
   through the mcp SDK client against an in-process server with default settings (the handler runs
   a new query's search in a worker thread; the protocol's own work is in).
2. Fused search at 200 tools while the same embedder embeds passages in another thread, as a corpus
   backfill does.
3. Recall@1 / Recall@3 on ``bench/queries.py`` over the real catalogue: BM25, by meaning and fused
   with tool vectors embedded for real, and the rank_bm25 ranking before.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import numpy as np
from mcp import Client
from rank_bm25 import BM25Okapi

if __package__ in (None, ""):  # run as a file by --before: this tree's bench, the other tree's deepr_mcp
    sys.path.append(str(Path(__file__).resolve().parents[1]))

from bench.gateway import WORDS, percentile, synthetic
from bench.queries import QUERIES
from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from deepr_mcp.embedding import Embedder, shared_embedder
from deepr_mcp.gateway import ToolRegistry, ToolSpec
from deepr_mcp.gateway.gateway import Gateway
from deepr_mcp.gateway.registry import document_tokens
from deepr_mcp.gateway.vectors import ToolVectors, text_key, tool_text
from deepr_mcp.text.tokenizer import expand_query, tokenize
from deepr_mcp.tools import all_tools

SIZES = (200, 1_000, 10_000, 50_000)
BM25_ONLY = "BM25 only (embedder none)"
COLD = "fused, a new query (embedded)"
WARM = "fused, a query asked before (vector cached)"
MCP_COLD = "through the MCP client, a new query"
MCP_WARM = "through the MCP client, a query asked before"
RANK_BM25 = "rank_bm25 BM25Okapi (before the numpy index)"


def search_embedder() -> Embedder:
    """The embedder tool_search runs with: the shared MiniLM in the form the gateway uses (int8 arithmetic
    where the code has it; the tree measured by ``--before`` may not)."""
    embedder = shared_embedder("minilm")
    try:
        from deepr_mcp.gateway.tool_model import tool_embedder
    except ImportError:
        return embedder
    return tool_embedder(embedder)


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


Row = dict[str, float | int | str]


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


def tool_search(registry: ToolRegistry) -> Callable[[str], object]:
    """``tool_search`` as the server answers it, minus the transport."""
    gateway = Gateway(registry, "proxy")
    return lambda query: gateway.search({"query": query, "limit": 3})


def row(n: int, label: str, build: float, timing: tuple[float, float, float], count: int) -> Row:
    p50, p95, cpu = timing
    return {"tools": n, "label": label, "build": build, "p50": p50, "p95": p95, "cpu": cpu, "queries": count}


def scale(sizes: tuple[int, ...] = SIZES, *, rank_bm25: bool = True) -> list[Row]:
    rows: list[Row] = []
    rng = random.Random(11)
    embedder = search_embedder()
    embedder.embed(["load the model before timing"], query=True)
    for n in sizes:
        specs = synthetic(n)
        queries = queries_for(rng)
        start = time.perf_counter()
        registry = ToolRegistry()
        registry.register_many(specs)
        registry.search("warm up the index")  # registration is lazy; the first search builds
        build = time.perf_counter() - start
        rows.append(row(n, BM25_ONLY, build, timed(tool_search(registry), queries), len(queries)))
        vectors = ToolVectors(embedder)  # no cache file, no worker: the vectors are put in below
        with_random_vectors(specs, vectors, n)
        start = time.perf_counter()
        fused = ToolRegistry(specs, vectors=vectors)  # every tool has its vector: nothing is queued
        fused.search("warm up the index and the rows")
        build = time.perf_counter() - start
        rows.append(row(n, COLD, build, timed(tool_search(fused), queries), len(queries)))
        again = queries[-200:]  # the query cache keeps at least the newest 256: these are all in it
        rows.append(row(n, WARM, 0.0, timed(tool_search(fused), again), len(again)))
        if n < 1_000 or not rank_bm25:
            continue
        start = time.perf_counter()
        baseline = RankBM25Registry(specs)
        build = time.perf_counter() - start
        few = queries[: 300 if n <= 10_000 else 40]
        rows.append(row(n, RANK_BM25, build, timed(lambda q: baseline.search(q, 3), few), len(few)))  # noqa: B023
    return rows


def queries_for(rng: random.Random) -> list[str]:
    return list(dict.fromkeys(" ".join(rng.choices(WORDS, k=rng.randint(2, 5))) for _ in range(320)))[:300]


async def _through_mcp(n: int) -> list[Row]:
    """tool_search as a client sees it: an in-process server (the default settings) and the mcp SDK client,
    so the handler's worker thread for a new query and the protocol's own work are in. The catalogue's
    tools are embedded for real; the synthetic ones get random vectors first, as in ``scale``."""
    rng = random.Random(11)
    queries = queries_for(rng)
    with tempfile.TemporaryDirectory() as tmp:
        async with Root(Settings(data_dir=Path(tmp))) as root:
            vectors = root.registry.vectors
            assert vectors is not None, "the default settings embed tools"
            specs = synthetic(n - len(root.registry))
            with_random_vectors(specs, vectors, n)
            root.registry.register_many(specs)
            assert await anyio.to_thread.run_sync(vectors.wait_idle, 600), "tool vectors never finished"
            async with Client(build_server(root), mode="legacy") as client:
                await client.call_tool("tool_search", {"query": "warm up the index and the model"})
                rows = []
                for label, batch in ((MCP_COLD, queries), (MCP_WARM, queries[-200:])):
                    samples = []
                    cpu = time.process_time()
                    for query in batch:
                        t0 = time.perf_counter()
                        await client.call_tool("tool_search", {"query": query, "limit": 3})
                        samples.append((time.perf_counter() - t0) * 1000)
                    cpu_ms = (time.process_time() - cpu) * 1000 / len(batch)
                    timing = (statistics.median(samples), percentile(samples, 0.95), cpu_ms)
                    rows.append(row(n, label, 0.0, timing, len(batch)))
    return rows


def through_mcp(sizes: tuple[int, ...]) -> list[Row]:
    return [r for n in sizes for r in anyio.run(_through_mcp, n)]


def load() -> str:
    """The machine's load average now (1, 5, 15 minutes), as ``uptime`` shows it."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def before(tree: Path, sizes: str) -> list[Row]:
    """The same measurement of the code in ``tree`` (its deepr_mcp, this bench), in a subprocess."""
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--sizes", sizes, "--json"]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def print_scale(after: list[Row], was: list[Row] | None) -> None:
    print("### tool_search at catalogue scale (synthetic tools, through Gateway.search)\n")
    if was is None:
        print("| tools | ranking | build s | p50 ms | p95 ms | CPU ms/query | queries |")
        print("|---:|---|---:|---:|---:|---:|---:|")
        for r in after:
            print(
                f"| {r['tools']:,} | {r['label']} | {r['build']:.2f} | {r['p50']:.3f} | {r['p95']:.3f} "
                f"| {r['cpu']:.3f} | {r['queries']} |"
            )
        return
    old = {(r["tools"], r["label"]): r for r in was}
    head = "p50 ms before | p50 ms after | p95 ms before | p95 ms after | CPU ms before | CPU ms after"
    print(f"| tools | ranking | {head} |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in after:
        b = old.get((r["tools"], r["label"]))
        if b is None:
            continue
        print(
            f"| {r['tools']:,} | {r['label']} | {b['p50']:.3f} | {r['p50']:.3f} | {b['p95']:.3f} | {r['p95']:.3f} "
            f"| {b['cpu']:.3f} | {r['cpu']:.3f} |"
        )


def while_embedding(n: int = 200, count: int = 60) -> tuple[float, float, float, float]:
    """Fused search p50/p95/max wall ms and CPU ms per query while the same embedder embeds passages
    in another thread, batches of 64 as a corpus backfill does (the server shares one embedder)."""
    rng = random.Random(5)
    embedder = shared_embedder("minilm")  # passages: the exact model
    specs = synthetic(n)
    vectors = ToolVectors(search_embedder())  # tools and queries: the form tool_search uses
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
    vectors = ToolVectors(search_embedder())
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
    parser.add_argument("--no-recall", action="store_true", help="the scale tables only")
    parser.add_argument("--before", type=Path, help="a checkout of the code to compare (measured first)")
    parser.add_argument("--json", action="store_true", help="the scale rows as JSON (what --before reads)")
    args = parser.parse_args()
    sizes = tuple(int(n) for n in args.sizes.split(","))
    if args.json:
        print(json.dumps(scale(sizes, rank_bm25=False) + through_mcp(sizes)))
        return
    load_before = load()
    was = before(args.before, args.sizes) if args.before else None
    load_after = load()
    print_scale(scale(sizes, rank_bm25=was is None) + through_mcp(sizes), was)
    print(f"\nload average (1, 5, 15 min): before {load_before}, after {load_after}, end {load()}")
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
