"""Federation at catalogue scale: one synthetic upstream of N tools behind deepr-mcp's gateway.

Run: ``timeout 600 .venv/bin/python -m bench.upstreams --upstream 1000`` (about a minute).
The upstream is tests/upstreams/fixture_server.py (a real Python SDK server over stdio) with
``--tools N``; deepr-mcp runs in-process, driven by the SDK client like any client.
1. Footprint: bytes of the first ``tools/list`` (proxy mode) against the full catalogue
   (mode ``full``: every local and upstream tool with its schema).
2. ``tool_search`` p50/p95 through the protocol (client -> deepr -> registry -> answer).
3. ``tool_call`` overhead: the same upstream tool called through deepr (``tool_call``) and
   directly (a client of its own on the upstream), interleaved; the p50 difference is what
   deepr adds. A local tool through the same ``tool_call`` shows how much of that is the SDK
   hop from the client into deepr (paid by every tool) rather than federation.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings

ROOT = Path(__file__).resolve().parent.parent
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()


def upstream(tools: int) -> dict[str, Any]:
    args = ["-m", "tests.upstreams.fixture_server", "--tools", str(tools)]
    return {"name": "synth", "command": sys.executable, "args": args, "cwd": str(ROOT), "max_concurrency": 4}


def wire_bytes(tools: Any) -> int:
    dumped = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    return len(json.dumps({"tools": dumped}, separators=(",", ":"), ensure_ascii=False).encode())


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def footprint(data_dir: Path, tools: int) -> tuple[int, int, int]:
    sizes = {}
    for mode in ("proxy", "full"):
        settings = Settings(data_dir=data_dir, gateway={"mode": mode}, upstreams=[upstream(tools)])
        async with Root(settings) as root, Client(build_server(root), mode="legacy") as client:
            listed = (await client.list_tools()).tools
            sizes[mode] = (wire_bytes(listed), len(listed))
    return sizes["proxy"][0], sizes["full"][0], sizes["full"][1]


async def protocol_timings(data_dir: Path, tools: int, rounds: int) -> dict[str, list[float]]:
    rng = random.Random(5)
    timings: dict[str, list[float]] = {"search": [], "via": [], "direct": [], "local": []}
    settings = Settings(data_dir=data_dir, gateway={"mode": "proxy"}, upstreams=[upstream(tools)])
    spec = upstream(tools)
    direct_params = StdioServerParameters(command=spec["command"], args=spec["args"], cwd=spec["cwd"])
    async with Root(settings) as root, Client(build_server(root), mode="legacy") as client:
        async with Client(direct_params, mode="legacy") as direct:
            await client.call_tool("tool_search", {"query": "warm up"})  # first sync: session and listing
            await direct.list_tools()
            for _ in range(rounds):
                query = " ".join(rng.choices(WORDS, k=rng.randint(2, 4))) + " records"
                t0 = time.perf_counter()
                found = await client.call_tool("tool_search", {"query": query, "limit": 3})
                timings["search"].append((time.perf_counter() - t0) * 1000)
                assert not found.is_error
            for i in range(rounds):
                name = f"synthetic_{i % tools:05d}"
                t0 = time.perf_counter()
                via = await client.call_tool("tool_call", {"name": f"synth_{name}", "arguments": {"key": str(i)}})
                t1 = time.perf_counter()
                straight = await direct.call_tool(name, {"key": str(i)})
                t2 = time.perf_counter()
                assert not via.is_error and not straight.is_error
                await client.call_tool("tool_call", {"name": "server_info", "arguments": {}})
                t3 = time.perf_counter()
                timings["via"].append((t1 - t0) * 1000)
                timings["direct"].append((t2 - t1) * 1000)
                timings["local"].append((t3 - t2) * 1000)
    return timings


async def run(tools: int, rounds: int, loop: str = "asyncio") -> None:
    with tempfile.TemporaryDirectory(prefix="deepr-bench-upstreams-") as tmp:
        first, full, count = await footprint(Path(tmp) / "footprint", tools)
        timings = await protocol_timings(Path(tmp) / "timings", tools, rounds)
    print(f"### Federation: one upstream of {tools:,} tools (+ {count - tools} others: local and fixture tools)\n")
    print("| what | value |\n|---|---:|")
    print(f"| first tools/list, proxy mode (bytes) | {first:,} |")
    print(f"| full catalogue, mode full ({count:,} tools, bytes) | {full:,} |")
    print(f"| first tools/list vs full catalogue | {100 * (1 - first / full):.2f}% smaller |")
    search = timings["search"]
    p50, p95 = statistics.median(search), percentile(search, 0.95)
    print(f"| tool_search through the protocol, p50 / p95 ms | {p50:.2f} / {p95:.2f} |")
    via, direct = statistics.median(timings["via"]), statistics.median(timings["direct"])
    print(f"| tool_call through deepr, p50 ms | {via:.2f} |")
    print(f"| same tool called directly, p50 ms | {direct:.2f} |")
    print(f"| added by deepr, p50 ms | {via - direct:.2f} |")
    local = statistics.median(timings["local"])
    print(f"| of which the client->deepr hop (a local tool, server_info, via tool_call), p50 ms | {local:.2f} |")
    print(f"| added by federation itself (added - hop), p50 ms | {via - direct - local:.2f} |")
    print(
        f"\n{rounds} searches and {rounds} call pairs (interleaved), loopback stdio, in-process deepr client, {loop}."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--upstream", type=int, default=1000, metavar="N", help="tools in the synthetic upstream")
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--uvloop", action="store_true", help="run on uvloop (what `serve` uses when installed)")
    args = parser.parse_args()
    loop = "uvloop" if args.uvloop else "asyncio"
    anyio.run(run, args.upstream, args.rounds, loop, backend_options={"use_uvloop": args.uvloop})


if __name__ == "__main__":
    main()
