"""Push fan-out over streamable HTTP: N subscribers on one URI, M updates, as a table.

Run: ``.venv/bin/python -m bench.fanout`` (a few minutes). For N = 1, 100, 1,000 subscribers the
bench starts a deepr-mcp HTTP server (the real app plus a bench-only trigger route) and light
subscriber clients in separate processes (raw JSON-RPC over aiohttp: initialize, the GET event
stream, resources/subscribe). It publishes M updates 0.5 s apart two ways on the same sessions:

- ``deepr Notifier``: publish marks each subscriber's coalescing slot; one writer per session;
- ``naive sequential``: the reference design's loop, ``await send`` to each session in turn.

Latency is a client's receipt time minus the publish time the notification carries. The last
column checks that every subscriber received the final update. A run with one stalled subscriber
(it stops reading its stream) shows what it costs the others.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import aiohttp

URI = "deepr://campaigns/cbench/status"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
UPDATES = 10
INTERVAL_S = 0.5


# -- server side ---------------------------------------------------------------------------------


async def serve(data_dir: str) -> None:
    import uvicorn
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from deepr_mcp.app.http import bind_socket, build_http_app
    from deepr_mcp.app.services import Services
    from deepr_mcp.config import Settings
    from deepr_mcp.jobs.notifier import META_AT, META_COUNT

    settings = Settings(data_dir=Path(data_dir), subscriptions={"writers": int(os.environ.get("BENCH_WRITERS", "2"))})
    async with Services(settings) as services:
        app = build_http_app(services)
        notifier = services.notifier

        async def run(request: Request) -> JSONResponse:
            mode = request.query_params["mode"]
            published = []
            for _ in range(int(request.query_params["updates"])):
                if mode == "naive":
                    stamp = datetime.now().astimezone().isoformat()
                    subscribers = notifier.subscribers_of(URI)
                    meta = {META_COUNT: len(subscribers), META_AT: stamp}
                    for sub in subscribers:  # the reference design: await each client in turn
                        await sub.send(URI, meta)
                else:
                    stamp = await notifier.publish(URI)
                published.append(stamp)
                await asyncio.sleep(float(request.query_params["interval"]))
            return JSONResponse({"published": published, "subscribers": notifier.subscriber_count(URI)})

        async def count(_: Request) -> JSONResponse:
            return JSONResponse({"subscribers": notifier.subscriber_count(URI)})

        app.router.routes.append(Route("/bench/run", run, methods=["POST"]))
        app.router.routes.append(Route("/bench/count", count, methods=["GET"]))
        sock = bind_socket("127.0.0.1", 0)
        print(f"http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
        config = uvicorn.Config(app, log_level="error", lifespan="on", backlog=4096, limit_concurrency=None)
        await uvicorn.Server(config).serve(sockets=[sock])


# -- subscriber side -----------------------------------------------------------------------------


async def subscriber(http: aiohttp.ClientSession, base: str, stall: bool, out: list) -> None:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}},
    }
    async with http.post(f"{base}/mcp", json=init, headers=ACCEPT) as resp:
        session_id = resp.headers["mcp-session-id"]
        await resp.read()
    headers = {**ACCEPT, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    async with http.post(f"{base}/mcp", json=note, headers=headers) as resp:
        await resp.read()
    stream = await http.get(f"{base}/mcp", headers={**headers, "Accept": "text/event-stream"})
    sub = {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": URI}}
    async with http.post(f"{base}/mcp", json=sub, headers=headers) as resp:
        await resp.read()
    received: list[tuple[float, str]] = []
    out.append(received)
    if stall:
        await asyncio.sleep(3600)  # holds the stream open and never reads it
    async for raw in stream.content:
        line = raw.decode().strip()
        if line.startswith("data:") and "resources/updated" in line:
            meta = json.loads(line[5:])["params"].get("_meta", {})
            received.append((time.time(), meta.get("deepr/publishedAt", "")))


async def subscribers_main(base: str, count: int, stall: int, result_path: str) -> None:
    out: list = []
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None)) as http:
        tasks = [asyncio.create_task(subscriber(http, base, i < stall, out)) for i in range(count)]
        while len(out) < count:  # noqa: ASYNC110 - a bench's start-up barrier, polled
            await asyncio.sleep(0.05)
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)  # the orchestrator says when the run is over
        await asyncio.to_thread(Path(result_path).write_text, json.dumps(out[stall:] if stall else out))
        for task in tasks:
            task.cancel()


# -- orchestrator --------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_case(n: int, mode: str, stall: int = 0) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [sys.executable, "-m", "bench.fanout", "--serve", tmp], stdout=subprocess.PIPE, text=True
        )
        base = server.stdout.readline().strip()  # type: ignore[union-attr]
        workers, results = [], []
        per = [n // min(n, 4) + (1 if i < n % min(n, 4) else 0) for i in range(min(n, 4))]
        for i, k in enumerate(per):
            path = f"{tmp}/w{i}.json"
            results.append(path)
            workers.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "bench.fanout",
                        "--subscribers",
                        base,
                        str(k),
                        str(stall if i == 0 else 0),
                        path,
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        for w in workers:
            assert w.stdout.readline().strip() == "ready"  # type: ignore[union-attr]
        params = f"mode={mode}&updates={UPDATES}&interval={INTERVAL_S}"
        started = time.time()
        out = subprocess.run(
            ["curl", "-s", "-X", "POST", f"{base}/bench/run?{params}"], capture_output=True, text=True, check=True
        ).stdout
        total_s = time.time() - started - UPDATES * INTERVAL_S
        published = json.loads(out)["published"]
        time.sleep(1.0)
        for w in workers:
            w.stdin.write("done\n")  # type: ignore[union-attr]
            w.stdin.flush()  # type: ignore[union-attr]
        for w in workers:
            w.wait(timeout=60)
        server.terminate()
        server.wait(timeout=30)
        latencies, got_final, subs = [], 0, 0
        for path in results:
            for received in json.loads(Path(path).read_text()):
                subs += 1
                for at, stamp in received:
                    if stamp:
                        latencies.append((at - datetime.fromisoformat(stamp).timestamp()) * 1000)
                got_final += any(stamp == published[-1] for _, stamp in received)
        return {
            "n": n,
            "mode": mode,
            "stalled": stall,
            "p50": statistics.median(latencies) if latencies else float("nan"),
            "p99": pct(latencies, 0.99) if latencies else float("nan"),
            "extra_s": max(0.0, total_s),
            "final": f"{got_final}/{subs}",
            "notifications": len(latencies),
        }


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--serve")
    parser.add_argument("--subscribers", nargs=4)
    parser.add_argument("--sizes", default="1,100,1000")
    parser.add_argument("--writers", default="2", help="Notifier writer tasks (sets BENCH_WRITERS for the server)")
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.serve))
        return
    if args.subscribers:
        base, count, stall, path = args.subscribers
        asyncio.run(subscribers_main(base, int(count), int(stall), path))
        return
    os.environ["BENCH_WRITERS"] = args.writers
    rows = []
    for n in (int(x) for x in args.sizes.split(",")):
        for mode in ("deepr", "naive"):
            rows.append(run_case(n, mode))
        if n >= 100:
            rows.append(run_case(n, "deepr", stall=1))
    loop = "uvloop" if _has("uvloop") else "asyncio"
    print(
        f"{UPDATES} updates {INTERVAL_S} s apart, one URI, subscribers in 4 processes, {os.cpu_count()} cores, "
        f"server loop {loop}, http {'httptools' if _has('httptools') else 'h11'}"
    )
    print()
    print(
        "| subscribers | fan-out | stalled | p50 ms | p99 ms | publish overrun s | got final update | notifications |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        name = (
            f"deepr Notifier (coalescing slots, {args.writers} writers)"
            if r["mode"] == "deepr"
            else "naive sequential await"
        )
        print(
            f"| {r['n']:,} | {name} | {r['stalled']} | {r['p50']:.1f} | {r['p99']:.1f} | {r['extra_s']:.2f} | "
            f"{r['final']} | {r['notifications']:,} |"
        )


if __name__ == "__main__":
    main()
