"""Registry build and search at catalogue scale, this index beside the rank_bm25 one it replaced.

Run: ``timeout 600 .venv/bin/python -m bench.registry_scale`` (about a minute; most of it is the
rank_bm25 baseline). Prints markdown tables:

1. Build (register + tokenise + index) and search p50/p95 over 1,000 / 10,000 / 50,000 synthetic
   tools (``bench.gateway.synthetic``), 300 random queries each; rank_bm25 (``BM25Okapi`` with
   Lucene idf, scoring every document in Python per query, the registry before) on the same
   tools and queries, fewer queries at 50,000 because each takes a fifth of a second.
2. Recall@1 / Recall@3 on ``bench/queries.py`` over the real catalogue: the registry now
   (same BM25 scores plus the destructive-tool step back) against the rank_bm25 ranking before.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable

from rank_bm25 import BM25Okapi

from bench.gateway import WORDS, percentile, synthetic
from bench.queries import QUERIES
from deepr_mcp.gateway import ToolRegistry, ToolSpec
from deepr_mcp.gateway.registry import document_tokens
from deepr_mcp.text.tokenizer import expand_query, tokenize
from deepr_mcp.tools import all_tools

SIZES = (1_000, 10_000, 50_000)


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


def timed(search: Callable[[str], object], queries: list[str]) -> tuple[float, float]:
    samples = []
    for query in queries:
        t0 = time.perf_counter()
        search(query)
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples), percentile(samples, 0.95)


def scale() -> list[tuple[int, str, float, float, float, int]]:
    rows = []
    rng = random.Random(11)
    for n in SIZES:
        specs = synthetic(n)
        queries = [" ".join(rng.choices(WORDS, k=rng.randint(2, 5))) for _ in range(300)]
        start = time.perf_counter()
        registry = ToolRegistry()
        registry.register_many(specs)
        registry.search("warm up the index")  # registration is lazy; the first search builds
        build = time.perf_counter() - start
        p50, p95 = timed(lambda q: registry.search(q, 3), queries)  # noqa: B023 - used at once
        rows.append((n, "registry (precomputed BM25 weights, numpy)", build, p50, p95, len(queries)))
        start = time.perf_counter()
        baseline = RankBM25Registry(specs)
        build = time.perf_counter() - start
        few = queries[: 300 if n <= 10_000 else 40]
        p50, p95 = timed(lambda q: baseline.search(q, 3), few)  # noqa: B023 - used at once
        rows.append((n, "rank_bm25 BM25Okapi (before)", build, p50, p95, len(few)))
    return rows


def recall() -> list[tuple[str, float, float, int]]:
    specs = all_tools()
    pairs = [(tool, q) for tool, queries in QUERIES.items() for q in queries]
    now = ToolRegistry(specs)
    before = RankBM25Registry(specs)
    ours = [[h.name for h in now.search(q, 3)] for _, q in pairs]
    base = [before.search(q, 3) for _, q in pairs]

    def at(results: list[list[str]], k: int) -> float:
        return sum(tool in r[:k] for (tool, _), r in zip(pairs, results, strict=True)) / len(pairs)

    return [
        ("registry now (BM25 + destructive step-back)", at(ours, 1), at(ours, 3), len(pairs)),
        ("rank_bm25 ranking before", at(base, 1), at(base, 3), len(pairs)),
    ]


def main() -> None:
    print("### Registry at catalogue scale (synthetic tools)\n")
    print("| tools | index | build s | search p50 ms | search p95 ms | queries |\n|---:|---|---:|---:|---:|---:|")
    for n, name, build, p50, p95, count in scale():
        print(f"| {n:,} | {name} | {build:.2f} | {p50:.3f} | {p95:.3f} | {count} |")
    print(f"\n### Recall on bench/queries.py ({len(all_tools())} real tools)\n")
    print("| ranking | Recall@1 | Recall@3 | queries |\n|---|---:|---:|---:|")
    for name, r1, r3, count in recall():
        print(f"| {name} | {r1:.3f} | {r3:.3f} | {count} |")


if __name__ == "__main__":
    main()
