"""Gateway footprint, registry speed and search quality, printed as markdown tables.

Run: ``.venv/bin/python -m bench.gateway`` (a few seconds to a minute).
1. Bytes of the first ``tools/list`` per gateway mode (through a real in-process MCP client)
   against the whole catalogue, and of one ``tool_search`` answer in JSON vs markdown.
2. Registry build time and search p50/p95 over 100, 1,000 and 10,000 synthetic tools.
3. Recall@1 / Recall@3 of ``bench/queries.py`` on the real catalogue, side by side with the
   naive baseline: ``BM25Okapi`` over ``text.lower().split()``.
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client
from rank_bm25 import BM25Okapi

from bench.queries import QUERIES
from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from deepr_mcp.gateway import ToolRegistry, ToolSpec
from deepr_mcp.tools import all_tools


def wire_bytes(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


async def footprint() -> list[tuple[str, int]]:
    rows: list[tuple[str, int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("proxy", "search", "full"):
            settings = Settings(data_dir=Path(tmp), gateway={"mode": mode})
            async with Root(settings) as services:
                async with Client(build_server(services), mode="legacy") as client:
                    listed = await client.list_tools()
                    tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
                    rows.append((f"first tools/list, mode {mode} ({len(tools)} tools)", wire_bytes({"tools": tools})))
                    if mode == "proxy":
                        for fmt in ("json", "markdown"):
                            result = await client.call_tool(
                                "tool_search", {"query": "start a research campaign", "limit": 3, "format": fmt}
                            )
                            content = [
                                c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in result.content
                            ]
                            rows.append((f"tool_search answer, 3 hits, {fmt} (text content)", wire_bytes(content)))
    return rows


WORDS = (
    "research campaign budget report sandbox corpus expert belief source citation plan status cancel pause "
    "resume start list query search read write delete extract cost estimate wait decide gap profile fill "
    "follow upload document passage index weather stock email calendar invoice ticket deploy build test lint "
    "image video audio translate summarize classify embed vector graph node edge user team project issue"
).split()


def synthetic(n: int, seed: int = 7) -> list[ToolSpec]:
    rng = random.Random(seed)
    specs = []
    for i in range(n):
        verb, noun = rng.choice(WORDS), rng.choice(WORDS)
        desc = " ".join(rng.choices(WORDS, k=rng.randint(8, 20)))
        props = {
            rng.choice(WORDS) + f"_{j}": {"type": "string", "description": " ".join(rng.choices(WORDS, k=5))}
            for j in range(rng.randint(1, 4))
        }
        specs.append(ToolSpec(f"{verb}_{noun}_{i}", desc, {"type": "object", "properties": props}))
    return specs


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def speed() -> list[tuple[int, float, float, float]]:
    rows = []
    rng = random.Random(11)
    for n in (100, 1_000, 10_000):
        specs = synthetic(n)
        start = time.perf_counter()
        registry = ToolRegistry()
        registry.register_many(specs)
        registry.search("warm up the index")  # registration is lazy; the first search builds
        build_s = time.perf_counter() - start
        timings = []
        for _ in range(200):
            query = " ".join(rng.choices(WORDS, k=rng.randint(2, 5)))
            t0 = time.perf_counter()
            registry.search(query, limit=3)
            timings.append((time.perf_counter() - t0) * 1000)
        rows.append((n, build_s, statistics.median(timings), percentile(timings, 0.95)))
    return rows


def naive_rank(specs: list[ToolSpec]) -> callable:  # type: ignore[valid-type]
    texts = [f"{s.name} {s.description} " + " ".join(s.input_schema.get("properties", {})) for s in specs]
    index = BM25Okapi([t.lower().split() for t in texts])

    def rank(query: str, k: int) -> list[str]:
        scores = index.get_scores(query.lower().split())
        order = sorted(range(len(specs)), key=lambda i: (-scores[i], specs[i].name))
        return [specs[i].name for i in order[:k] if scores[i] > 0]

    return rank


def recall() -> list[tuple[str, float, float, int]]:
    specs = all_tools()
    registry = ToolRegistry(specs)
    naive = naive_rank(specs)
    pairs = [(tool, q) for tool, queries in QUERIES.items() for q in queries]
    ours = [[h.name for h in registry.search(q, 3)] for _, q in pairs]
    base = [naive(q, 3) for _, q in pairs]

    def at(results: list[list[str]], k: int) -> float:
        return sum(tool in r[:k] for (tool, _), r in zip(pairs, results, strict=True)) / len(pairs)

    return [
        ("deepr tokenizer + BM25 (Lucene idf)", at(ours, 1), at(ours, 3), len(pairs)),
        ("naive BM25Okapi over lower().split()", at(base, 1), at(base, 3), len(pairs)),
    ]


def main() -> None:
    rows = anyio.run(footprint)
    full = next(b for label, b in rows if "mode full" in label)
    print("### 1. Footprint (bytes of JSON on the wire)\n")
    print("| what | bytes | vs full catalogue |\n|---|---:|---:|")
    for label, size in rows:
        print(
            f"| {label} | {size:,} | {100 * (1 - size / full):.1f}% smaller |"
            if "mode full" not in label
            else f"| {label} | {size:,} | - |"
        )
    print("\n### 2. Registry speed (synthetic tools, 200 queries each)\n")
    print("| tools | build (register + index) s | search p50 ms | search p95 ms |\n|---:|---:|---:|---:|")
    for n, build_s, p50, p95 in speed():
        print(f"| {n:,} | {build_s:.3f} | {p50:.2f} | {p95:.2f} |")
    print(f"\n### 3. Search quality on the real catalogue ({len(all_tools())} tools)\n")
    print("| ranker | Recall@1 | Recall@3 | queries |\n|---|---:|---:|---:|")
    for name, r1, r3, n in recall():
        print(f"| {name} | {r1:.2f} | {r3:.2f} | {n} |")


if __name__ == "__main__":
    main()
