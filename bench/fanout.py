"""Push fan-out over streamable HTTP: N subscribers on one URI, M updates, as a table.

Run: ``.venv/bin/python -m bench.fanout`` (a few minutes). For N = 1, 100, 1,000 subscribers the
bench starts a deepr-mcp HTTP server (the real app plus a bench-only trigger route) and light
subscriber clients in 4 separate processes (raw JSON-RPC over aiohttp: initialize,
resources/subscribe; the GET event stream read from a plain socket, each ``resources/updated``
frame JSON-parsed, or with ``--client aiohttp`` through aiohttp's line reader, which costs the
clients about a third more CPU per notification on the cores the server also needs). It publishes
M updates 0.5 s apart several ways on the same sessions:

- ``deepr Notifier``: publish marks each subscriber's coalescing slot; one writer per session;
- ``previous Notifier``: the same, but one message built and serialised per subscriber (as before);
- ``naive sequential``: the reference design's loop, ``await send`` to each session in turn, one
  message built per subscriber.

The table shows each row's p50/p99 next to the naive loop's from the same run.

Latency is a client's receipt time (when the read that brought the frame returned) minus the
publish time the notification carries. "server wrote all" is the server's side alone: from the
publish until the update was handed to the last subscriber's socket; the rest of the latency is
the kernel and the clients (4 processes sharing the same cores). The last columns check that every
subscriber received the final update. A run with one stalled subscriber (it stops reading its
stream) shows what it costs the others. Every wait is bounded: a run that cannot finish (a server
or subscribers that never come up, a trigger that never answers) is reported and left out.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import select
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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
    from mcp.server.subscriptions import ResourceUpdated
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from deepr_mcp.app.root import Root
    from deepr_mcp.config import Settings
    from deepr_mcp.jobs.notifier import Update
    from deepr_mcp.transports.http import bind_socket, build_http_app

    writers = int(os.environ.get("BENCH_WRITERS", "2"))
    # a long send timeout keeps a clogged subscriber holding its writer for the whole run (the worst case)
    subscriptions = {"writers": writers, "send_timeout_s": 60}
    store = {"url": os.environ["BENCH_STORE"]} if os.environ.get("BENCH_STORE") else {}
    settings = Settings(data_dir=Path(data_dir), subscriptions=subscriptions, store=store)
    async with Root(settings) as services:
        app = build_http_app(services)
        notifier = services.notifier

        async def run(request: Request) -> JSONResponse:
            mode, interval = request.query_params["mode"], float(request.query_params["interval"])
            published, written_ms = [], []
            for _ in range(int(request.query_params["updates"])):
                began = time.monotonic()
                if mode == "bus":  # through the subscription bus: with a store, every replica's subscribers
                    stamp = datetime.now(UTC).isoformat()
                    await services.bus.publish(ResourceUpdated(uri=URI))
                elif mode == "naive":
                    stamp = datetime.now().astimezone().isoformat()
                    subscribers = notifier.subscribers_of(URI)
                    for sub in subscribers:  # the reference design: await each client in turn
                        await sub.send(Update(URI, stamp, len(subscribers)))
                else:
                    notifier.share_updates = mode != "previous"
                    stamp = await notifier.publish(URI)
                published.append(stamp)
                if mode != "bus":
                    written_ms.append(await written(began, interval) * 1000)
                await asyncio.sleep(max(0.0, interval - (time.monotonic() - began)))  # updates `interval` apart
            count = notifier.subscriber_count(URI)
            return JSONResponse({"published": published, "subscribers": count, "written_ms": written_ms})

        async def written(began: float, limit: float) -> float:
            """Seconds from the publish until the update was handed to every measured subscriber's socket
            (the writers' state polled every 1 ms; the stalled subscriber is left out)."""
            stalled = {s.connection_id for s in notifier.subscribers_of(CLOG_URI)}

            def busy() -> bool:  # O(writers): something queued, or a writer sending to a measured subscriber
                if notifier._ready:
                    return True
                return any(w.subscriber and w.subscriber.connection_id not in stalled for w in notifier._writers)

            while busy() and time.monotonic() - began < limit:  # noqa: ASYNC110 - a bench probe
                await asyncio.sleep(0.001)
            return time.monotonic() - began

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
            timeout_keep_alive=300,  # set-up under load is slow: a pooled connection closed at 5 s was reset
            timeout_graceful_shutdown=5,  # open event streams must not hold a terminated server up
            http=os.environ.get("BENCH_HTTP", "auto"),
        )
        await uvicorn.Server(config).serve(sockets=[sock])


# -- subscriber side -----------------------------------------------------------------------------


async def subscriber(http: aiohttp.ClientSession, base: str, stall: bool, out: list) -> None:
    """One light client; one that cannot even subscribe (a loaded machine) is counted, with nothing
    received, instead of holding the start-up barrier forever."""
    counted: list[bool] = []
    try:
        await _subscriber(http, base, stall, out, counted)
    except Exception as exc:  # whatever it was, it must be counted, or the barrier waits forever
        print(f"  a subscriber failed: {type(exc).__name__}: {exc}"[:200], file=sys.stderr)
        if not counted:  # failed before it was counted as ready
            out.append([])


async def _subscriber(http: aiohttp.ClientSession, base: str, stall: bool, out: list, counted: list) -> None:
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
    received: list[tuple[float, str]] = []
    if CLIENT == "raw":
        sse = {**headers, "Accept": "text/event-stream"}
        stream: Any = await asyncio.wait_for(open_raw_stream(base, sse, received, stall=stall), 120)
    else:
        stream = await http.get(
            f"{base}/mcp", headers={**headers, "Accept": "text/event-stream"}, timeout=STREAM_TIMEOUT
        )
    sub = {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": URI}}
    async with http.post(f"{base}/mcp", json=sub, headers=headers) as resp:
        await resp.read()
    if stall:
        clog = {"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe", "params": {"uri": CLOG_URI}}
        async with http.post(f"{base}/mcp", json=clog, headers=headers) as resp:
            await resp.read()
    out.append(None if stall else received)  # a stalled one is not measured, only counted as ready
    counted.append(True)
    if stall:
        await asyncio.sleep(3600)  # holds the stream open and never reads it: buffers fill, then sends block
    if CLIENT == "raw":
        await asyncio.sleep(3600)  # RawFrames records what arrives; the stream stays open until cancelled
    async for raw in stream.content:
        line = raw.decode().strip()
        if line.startswith("data:") and "resources/updated" in line:
            meta = json.loads(line[5:])["params"].get("_meta", {})
            received.append((time.time(), meta.get("deepr/publishedAt", "")))


SETUP_S = 300
"""Every wait in a run is bounded: subscribers not set up by then are counted with nothing received."""
STREAM_TIMEOUT = aiohttp.ClientTimeout(total=None, sock_connect=120)
"""The aiohttp GET stream stays open for the whole run (set-up requests: 120 s each)."""
CLIENT = os.environ.get("BENCH_CLIENT", "raw")
"""How subscribers read their GET stream: ``raw`` (asyncio socket, frames split and JSON-parsed by
hand) or ``aiohttp`` (its line reader); the set-up requests go through aiohttp either way."""


async def open_raw_stream(base: str, headers: dict[str, str], received: list, *, stall: bool) -> asyncio.Transport:
    """The GET event stream as a plain socket read by ``RawFrames`` (200 or raise); a stalled one stops reading."""
    host, port = base.removeprefix("http://").split(":")
    loop = asyncio.get_running_loop()
    head: asyncio.Future[bytes] = loop.create_future()
    transport, _ = await loop.create_connection(lambda: RawFrames(head, received), host, int(port))
    lines = ["GET /mcp HTTP/1.1", f"Host: {host}:{port}", *(f"{k}: {v}" for k, v in headers.items())]
    transport.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    status = await head
    if not status.startswith(b"HTTP/1.1 200"):
        transport.close()
        raise aiohttp.ClientError(f"GET stream refused: {status[:60]!r}")
    if stall:
        transport.pause_reading()  # never reads again: buffers fill, then sends to it block
    return transport  # type: ignore[return-value]


class RawFrames(asyncio.Protocol):
    """Reads one event stream in the loop's data callback (no task wake-up per frame): each read's
    arrival time is the receipt time of every whole SSE frame in it, and each ``resources/updated``
    frame is JSON-parsed after the time is taken. HTTP chunk-size lines between frames are skipped
    (each frame is one chunk, so a frame is never split by them)."""

    def __init__(self, head: asyncio.Future[bytes], received: list) -> None:
        self.head, self.received, self.buffer = head, received, b""

    def data_received(self, data: bytes) -> None:
        at = time.time()
        self.buffer += data
        if not self.head.done():
            if b"\r\n\r\n" not in self.buffer:
                return
            status, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
            self.head.set_result(status)
        *frames, self.buffer = self.buffer.split(b"\r\n\r\n")
        for frame in frames:
            start = frame.find(b"data: ")
            if start < 0 or b"resources/updated" not in frame:
                continue  # a chunk-size line, a ping, another message
            message = json.loads(frame[start + 6 :])
            if message["method"] == "notifications/resources/updated" and message["params"]["uri"] == URI:
                self.received.append((at, message["params"].get("_meta", {}).get("deepr/publishedAt", "")))

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.head.done():
            self.head.set_exception(exc or ConnectionError("closed before the response"))


async def subscribers_main(base: str, count: int, stall: int, result_path: str) -> None:
    out: list = []
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=120)) as http:
        tasks = [asyncio.create_task(subscriber(http, base, i < stall, out)) for i in range(count)]
        deadline = time.monotonic() + SETUP_S
        while len(out) < count and time.monotonic() < deadline:  # noqa: ASYNC110 - a start-up barrier, polled
            await asyncio.sleep(0.05)
        if len(out) < count:
            print(f"  {count - len(out)} subscribers not set up after {SETUP_S} s", file=sys.stderr)
        print("ready", flush=True)
        said = await asyncio.to_thread(sys.stdin.readline)  # "done LAST": the run is over, LAST its final stamp
        await _until_final(out, said.split()[1] if len(said.split()) > 1 else "")
        await asyncio.to_thread(Path(result_path).write_text, json.dumps([r for r in out if r is not None]))
        for task in tasks:
            task.cancel()


async def _until_final(out: list, last: str) -> None:
    """Wait (bounded) until every measured subscriber got the update stamped ``last``, or a later one.

    Waiting a fixed second instead made a slow delivery on a loaded machine look like a lost one."""
    if not last:
        return
    final = datetime.fromisoformat(last).timestamp()

    def missing() -> bool:
        return any(
            not any(stamp and datetime.fromisoformat(stamp).timestamp() >= final for _, stamp in received)
            for received in out
            if received is not None
        )

    deadline = time.monotonic() + 60
    while missing() and time.monotonic() < deadline:  # noqa: ASYNC110 - frames land in a protocol callback
        await asyncio.sleep(0.05)


# -- orchestrator --------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_case(
    n: int,
    mode: str,
    stall: int = 0,
    *,
    replicas: int = 1,
    store: str | None = None,
    updates: int = UPDATES,
    interval: float = INTERVAL_S,
) -> dict:
    """One run: ``replicas`` servers (sharing ``store`` when more than one), ``n`` subscribers spread
    evenly over them, ``updates`` published on the first server ``interval`` seconds apart."""
    with tempfile.TemporaryDirectory() as tmp, _reaped() as procs:
        env = {**os.environ, "BENCH_STORE": store or ""}
        servers, bases = [], []
        for r in range(replicas):
            os.mkdir(f"{tmp}/r{r}")
            cmd = [sys.executable, "-m", "bench.fanout", "--serve", f"{tmp}/r{r}"]
            servers.append(_started(procs, cmd, env=env))
            bases.append(_line(servers[-1], 120, "a server to start"))
        base = bases[0]
        workers, results = [], []
        count = min(n, replicas * -(-4 // replicas))  # 4 client processes, or a multiple of the replicas
        per = [n // count + (1 if i < n % count else 0) for i in range(count)]
        for i, k in enumerate(per):
            path = f"{tmp}/w{i}.json"
            results.append(path)
            args = ["--subscribers", bases[i % replicas], str(k), str(stall if i == 0 else 0), path]
            workers.append(_started(procs, [sys.executable, "-m", "bench.fanout", *args], stdin=subprocess.PIPE))
        for w in workers:
            assert _line(w, SETUP_S + 60, "subscribers to set up") == "ready"
        clogged = None
        if stall:
            clogged = json.loads(_post(f"{base}/bench/clog", 180))
            print(
                f"  stalled client: a send to it blocked after {clogged['sent']:,} notifications "
                f"({clogged['seconds']:.1f} s)"
                if clogged["blocked"]
                else f"  stalled client never blocked ({clogged['sent']:,} notifications)",
                file=sys.stderr,
            )
        params = f"mode={mode}&updates={updates}&interval={interval}"
        started = time.time()
        answer = json.loads(_post(f"{base}/bench/run?{params}", updates * interval * 3 + 120))
        total_s = time.time() - started - updates * interval
        published = [datetime.fromisoformat(p).timestamp() for p in answer["published"]]
        written_ms = answer.get("written_ms") or [float("nan")]
        last = answer["published"][-1] if answer["published"] else ""
        for w in workers:  # each writes its results once its subscribers got the last update (or 60 s)
            w.stdin.write(f"done {last}\n")  # type: ignore[union-attr]
            w.stdin.flush()  # type: ignore[union-attr]
        for w in workers:
            w.wait(timeout=60)
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(timeout=30)
        latencies, got_final, subs, delivered = [], 0, 0, []
        for path in results:
            for received in json.loads(Path(path).read_text()):
                subs += 1
                delivered.append(len(received))
                marks = []
                for at, stamp in received:
                    if stamp:
                        marked = datetime.fromisoformat(stamp).timestamp()
                        marks.append(marked)
                        latencies.append((at - published_before(published, marked)) * 1000)
                got_final += any(m >= published[-1] for m in marks)
        return {
            "n": n,
            "mode": mode,
            "stalled": stall,
            "replicas": replicas,
            "p50": statistics.median(latencies) if latencies else float("nan"),
            "p99": pct(latencies, 0.99) if latencies else float("nan"),
            "extra_s": max(0.0, total_s),
            "final": f"{got_final}/{subs}",
            "notifications": len(latencies),
            "per_subscriber": statistics.median(delivered) if delivered else 0,
            "published": len(published),
            "clogged": bool(clogged and clogged["blocked"]),
            "written_ms": statistics.median(written_ms),
        }


@contextlib.contextmanager
def _reaped() -> Iterator[list[subprocess.Popen]]:
    """The processes a run starts; whatever is still running when it ends (a timeout, an error) is killed."""
    procs: list[subprocess.Popen] = []
    try:
        yield procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)


def _started(procs: list[subprocess.Popen], cmd: list[str], **kwargs: Any) -> subprocess.Popen:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, **kwargs)
    procs.append(proc)
    return proc


def _line(proc: subprocess.Popen, timeout: float, waiting_for: str) -> str:
    """The next line ``proc`` prints, within ``timeout`` seconds (TimeoutError naming what was awaited)."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    if not ready:
        raise TimeoutError(f"waited {timeout:.0f} s for {waiting_for}")
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError(f"a process exited (code {proc.wait()}) while waiting for {waiting_for}")
    return line.strip()


def _post(url: str, timeout: float) -> str:
    cmd = ["curl", "-sf", "--max-time", str(int(timeout)), "-X", "POST", url]
    return subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=timeout + 10).stdout


def published_before(published: list[float], marked: float) -> float:
    """The publish a notification answers: the latest one at or before the time its server marked it.

    On the publishing server the mark is the publish itself; on another replica it is when the bus
    brought the change over, so the latency counts the trip between replicas too.
    """
    earlier = [p for p in published if p <= marked + 1e-6]
    return earlier[-1] if earlier else published[0]


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
    parser.add_argument("--replicas", type=int, default=0, help="also run N replicas sharing --store; compare")
    parser.add_argument("--store", help="redis://HOST:PORT/DB for --replicas, or 'auto' (a temporary redis-server)")
    parser.add_argument("--rate", type=float, default=0, help="rate mode: updates per second (with --replicas)")
    parser.add_argument("--duration", type=float, default=30, help="rate mode: seconds of updates")
    parser.add_argument(
        "--client", choices=["raw", "aiohttp"], default="raw", help="how subscribers read their event stream"
    )
    args = parser.parse_args()
    os.environ["BENCH_CLIENT"] = args.client
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
    if args.replicas:
        with store_for(args.store) as store:
            replicated(args, store)
        return
    modes = args.modes.split(",")
    cases = []
    for n in (int(x) for x in args.sizes.split(",")):
        cases += [(n, mode, 0) for mode in ("deepr", "previous", "naive") if mode in modes]
        if n >= 100 and "stalled" in modes:
            cases.append((n, "deepr", 1))
    runs: dict[tuple[int, str, int], list[dict]] = {case: [] for case in cases}
    for _ in range(args.repeat):  # interleaved, so drift on a shared machine hits every case alike
        for case in cases:
            try:
                runs[case].append(run_case(*case))
            except (TimeoutError, RuntimeError, subprocess.SubprocessError, AssertionError) as exc:
                print(f"  run {case} failed, left out: {type(exc).__name__}: {exc}", file=sys.stderr)
    loop = "uvloop" if use_uvloop(os.environ.get("BENCH_LOOP", "auto")) else "asyncio"
    http = os.environ.get("BENCH_HTTP", "auto")
    http = ("httptools" if _has("httptools") else "h11") if http == "auto" else http
    print(
        f"{UPDATES} updates {INTERVAL_S} s apart, one URI, subscribers in 4 processes ({args.client} stream reads), "
        f"{os.cpu_count()} cores, server loop {loop}, http {http}; "
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
    med = {case: statistics.median(r["p99"] for r in rs) for case, rs in runs.items() if rs}
    print(
        "| subscribers | fan-out | stalled subscriber | p50 ms | p99 ms | p99 vs naive | p99 vs no stall "
        "| server wrote all ms | publish overrun s | got final update | notifications |"
    )
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (n, mode, stall), rs in runs.items():
        name = NAMES.get(mode, f"deepr Notifier (one prepared message per update, {writers} writers)")
        if not rs:
            print(f"| {n:,} | {name} | {stall or 'none'} | every run failed (see above) |")
            continue
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
            f"{statistics.median(r['written_ms'] for r in rs):.1f} | "
            f"{statistics.median(r['extra_s'] for r in rs):.2f} | {final[0]:,}/{final[1]:,} | "
            f"{sum(r['notifications'] for r in rs):,} |"
        )


@contextlib.contextmanager
def store_for(store: str | None) -> Iterator[str]:
    """The store URL given, or with ``auto`` a throwaway ``redis-server`` on a free loopback port."""
    if store and store != "auto":
        yield store
        return
    if not shutil.which("redis-server"):
        raise SystemExit("--replicas needs --store redis://HOST:PORT/DB, or redis-server installed for --store auto")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        proc = subprocess.Popen([*cmd, "--dir", tmp], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(200):
                with contextlib.suppress(OSError):
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def replicated(args: argparse.Namespace, store: str) -> None:
    """Single process vs ``--replicas`` on one store, same run, same subscribers: latency, and with
    ``--rate`` what coalescing delivers per subscriber."""
    sizes = [int(x) for x in args.sizes.split(",")]
    shapes = [(1, None), (args.replicas, store)]
    if args.rate:
        updates, interval = round(args.rate * args.duration), 1 / args.rate
    else:
        updates, interval = UPDATES, INTERVAL_S
    runs: dict[tuple[int, int], list[dict]] = {(n, r): [] for n in sizes for r, _ in shapes}
    for _ in range(args.repeat):  # interleaved, so drift on a shared machine hits every case alike
        for n in sizes:
            for r, url in shapes:
                runs[(n, r)].append(run_case(n, "bus", replicas=r, store=url, updates=updates, interval=interval))
    print(
        f"{updates} updates {interval:.3f} s apart on replica 1, one URI, subscribers spread evenly over the "
        f"replicas, {os.cpu_count()} cores (servers and clients share them); median of {args.repeat} runs "
        "(p99 range in brackets); latency = receipt minus the publish on replica 1"
    )
    print()
    print("| subscribers | servers | p50 ms | p99 ms | delivered per subscriber | got final update |")
    print("|---:|---|---:|---:|---:|---:|")
    for (n, r), rs in runs.items():
        where = "1 process (in-memory bus)" if r == 1 else f"{r} replicas (Redis bus)"
        p99s = [x["p99"] for x in rs]
        final = sum(int(x["final"].split("/")[0]) for x in rs), sum(int(x["final"].split("/")[1]) for x in rs)
        print(
            f"| {n:,} | {where} | {statistics.median(x['p50'] for x in rs):.1f} | "
            f"{statistics.median(p99s):.1f} [{min(p99s):.0f}-{max(p99s):.0f}] | "
            f"{statistics.median(x['per_subscriber'] for x in rs):.0f} of {rs[0]['published']} | "
            f"{final[0]:,}/{final[1]:,} |"
        )


if __name__ == "__main__":
    main()
