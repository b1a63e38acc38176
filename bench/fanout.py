"""Push fan-out over streamable HTTP: N subscribers on one URI, M updates, as a table.

Run: ``.venv/bin/python -m bench.fanout`` (a few minutes). For N = 1, 100, 1,000 subscribers the
bench starts a deepr-mcp HTTP server (the real app plus a bench-only trigger route) and light
subscriber clients in separate processes (raw JSON-RPC over aiohttp: initialize, the GET event
stream, resources/subscribe). It publishes M updates 0.5 s apart two ways on the same sessions:

- ``deepr Notifier``: publish marks each subscriber's coalescing slot; one writer per session;
- ``previous Notifier``: the same, but one message built and serialised per subscriber (as before);
- ``naive sequential``: the reference design's loop, ``await send`` to each session in turn, one
  message built per subscriber.

The table shows each row's p50/p99 next to the naive loop's from the same run.

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
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import aiohttp

from deepr_mcp.transports.event_loop import use_uvloop

URI = "deepr://campaigns/cbench/status"
CLOG_URI = "deepr://campaigns/cbench/plan"
"""Subscribed only by the stalled client: the bench floods it until a send to that client blocks."""
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
UPDATES = 10
INTERVAL_S = 0.5


# -- server side ---------------------------------------------------------------------------------


async def serve(data_dir: str) -> None:
    import uvicorn
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from deepr_mcp.app.root import Root
    from deepr_mcp.config import Settings
    from deepr_mcp.jobs.notifier import Update
    from deepr_mcp.transports.http import bind_socket, build_http_app

    writers = int(os.environ.get("BENCH_WRITERS", "2"))
    # a long send timeout keeps a clogged subscriber holding its writer for the whole run (the worst case)
    settings = Settings(data_dir=Path(data_dir), subscriptions={"writers": writers, "send_timeout_s": 60})
    async with Root(settings) as services:
        app = build_http_app(services)
        notifier = services.notifier

        async def run(request: Request) -> JSONResponse:
            mode = request.query_params["mode"]
            published = []
            for _ in range(int(request.query_params["updates"])):
                if mode == "naive":
                    stamp = datetime.now().astimezone().isoformat()
                    subscribers = notifier.subscribers_of(URI)
                    for sub in subscribers:  # the reference design: await each client in turn
                        await sub.send(Update(URI, stamp, len(subscribers)))
                else:
                    notifier.share_updates = mode != "previous"
                    stamp = await notifier.publish(URI)
                published.append(stamp)
                await asyncio.sleep(float(request.query_params["interval"]))
            return JSONResponse({"published": published, "subscribers": notifier.subscriber_count(URI)})

        async def clog(_: Request) -> JSONResponse:
            """Publish to the stalled client's own URI until one send to it stays blocked for 1 s."""
            loop = asyncio.get_running_loop()
            started, sent = loop.time(), 0
            (stalled,) = notifier.subscribers_of(CLOG_URI)
            while loop.time() - started < 120:
                await notifier.publish(CLOG_URI)
                sent += 1
                waited = loop.time()
                while stalled.pending and loop.time() - waited < 1.0:  # noqa: ASYNC110 - bench probe
                    await asyncio.sleep(0 if loop.time() - waited < 0.05 else 0.01)
                if stalled.pending:
                    return JSONResponse({"blocked": True, "sent": sent, "seconds": loop.time() - started})
            return JSONResponse({"blocked": False, "sent": sent, "seconds": loop.time() - started})

        async def count(_: Request) -> JSONResponse:
            return JSONResponse({"subscribers": notifier.subscriber_count(URI)})

        app.router.routes.append(Route("/bench/run", run, methods=["POST"]))
        app.router.routes.append(Route("/bench/clog", clog, methods=["POST"]))
        app.router.routes.append(Route("/bench/count", count, methods=["GET"]))
        sock = bind_socket("127.0.0.1", 0)
        print(f"http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
        config = uvicorn.Config(
            app,
            log_level="error",
            lifespan="on",
            backlog=4096,
            limit_concurrency=None,
            http=os.environ.get("BENCH_HTTP", "auto"),
        )
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
    if stall:
        clog = {"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe", "params": {"uri": CLOG_URI}}
        async with http.post(f"{base}/mcp", json=clog, headers=headers) as resp:
            await resp.read()
    received: list[tuple[float, str]] = []
    out.append(None if stall else received)  # a stalled one is not measured, only counted as ready
    if stall:
        await asyncio.sleep(3600)  # holds the stream open and never reads it: buffers fill, then sends block
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
        await asyncio.to_thread(Path(result_path).write_text, json.dumps([r for r in out if r is not None]))
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
        clogged = None
        if stall:
            clogged = json.loads(
                subprocess.run(
                    ["curl", "-s", "-X", "POST", f"{base}/bench/clog"], capture_output=True, text=True, check=True
                ).stdout
            )
            print(
                f"  stalled client: a send to it blocked after {clogged['sent']:,} notifications "
                f"({clogged['seconds']:.1f} s)"
                if clogged["blocked"]
                else f"  stalled client never blocked ({clogged['sent']:,} notifications)",
                file=sys.stderr,
            )
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
            "clogged": bool(clogged and clogged["blocked"]),
        }


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop when installed (as the server itself runs), unless BENCH_LOOP=asyncio."""
    if use_uvloop(os.environ.get("BENCH_LOOP", "auto")):
        import uvloop

        return uvloop.new_event_loop
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--serve")
    parser.add_argument("--subscribers", nargs=4)
    parser.add_argument("--sizes", default="1,100,1000")
    parser.add_argument("--modes", default="deepr,previous,naive,stalled", help="which rows to run per size")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the table shows medians")
    parser.add_argument("--writers", default="2", help="Notifier writer tasks (sets BENCH_WRITERS for the server)")
    args = parser.parse_args()
    if args.serve:
        with asyncio.Runner(loop_factory=_loop_factory()) as runner:
            runner.run(serve(args.serve))
        return
    if args.subscribers:
        base, count, stall, path = args.subscribers
        with asyncio.Runner(loop_factory=_loop_factory()) as runner:
            runner.run(subscribers_main(base, int(count), int(stall), path))
        return
    os.environ["BENCH_WRITERS"] = args.writers
    modes = args.modes.split(",")
    cases = []
    for n in (int(x) for x in args.sizes.split(",")):
        cases += [(n, mode, 0) for mode in ("deepr", "previous", "naive") if mode in modes]
        if n >= 100 and "stalled" in modes:
            cases.append((n, "deepr", 1))
    runs: dict[tuple[int, str, int], list[dict]] = {case: [] for case in cases}
    for _ in range(args.repeat):  # interleaved, so drift on a shared machine hits every case alike
        for case in cases:
            runs[case].append(run_case(*case))
    loop = "uvloop" if use_uvloop(os.environ.get("BENCH_LOOP", "auto")) else "asyncio"
    http = os.environ.get("BENCH_HTTP", "auto")
    http = ("httptools" if _has("httptools") else "h11") if http == "auto" else http
    print(
        f"{UPDATES} updates {INTERVAL_S} s apart, one URI, subscribers in 4 processes, {os.cpu_count()} cores, "
        f"server loop {loop}, http {http}; "
        f"median of {args.repeat} runs (p99 range in brackets)"
    )
    print()
    print_table(runs, args.writers)


NAMES = {
    "naive": "naive sequential await (message built per subscriber)",
    "previous": "previous Notifier (message built per subscriber)",
}


def print_table(runs: dict[tuple[int, str, int], list[dict]], writers: str) -> None:
    """One row per case, each p99 next to the naive loop's (and the stalled row next to its unstalled one)."""
    med = {case: statistics.median(r["p99"] for r in rs) for case, rs in runs.items()}
    print(
        "| subscribers | fan-out | stalled subscriber | p50 ms | p99 ms | p99 vs naive | p99 vs no stall "
        "| publish overrun s | got final update | notifications |"
    )
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for (n, mode, stall), rs in runs.items():
        name = NAMES.get(mode, f"deepr Notifier (one prepared message per update, {writers} writers)")
        if stall:
            blocked = sum(r["clogged"] for r in rs)
            stalled = f"1, its sends blocked ({blocked}/{len(rs)} runs)"
        else:
            stalled = "none"
        p99s = [r["p99"] for r in rs]
        naive = med.get((n, "naive", 0))
        calm = med.get((n, mode, 0)) if stall else None
        vs_naive = f"{med[(n, mode, stall)] / naive:.2f}x" if naive else "-"
        vs_calm = f"{med[(n, mode, stall)] / calm:.2f}x" if calm else "-"
        final = sum(int(r["final"].split("/")[0]) for r in rs), sum(int(r["final"].split("/")[1]) for r in rs)
        print(
            f"| {n:,} | {name} | {stalled} | {statistics.median(r['p50'] for r in rs):.1f} | "
            f"{med[(n, mode, stall)]:.1f} [{min(p99s):.0f}-{max(p99s):.0f}] | {vs_naive} | {vs_calm} | "
            f"{statistics.median(r['extra_s'] for r in rs):.2f} | {final[0]:,}/{final[1]:,} | "
            f"{sum(r['notifications'] for r in rs):,} |"
        )


if __name__ == "__main__":
    main()
