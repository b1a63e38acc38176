"""A deepr-mcp server to test against: one launcher for a ``serve`` process, and the server in this process.

``launch`` starts ``deepr-mcp serve --http 127.0.0.1:0`` with an isolated data dir and no user config
file, its stderr in ``server-*.log`` in that data dir, and returns once the server has announced its
URL. The rest are views of it: ``http_server`` (async) and ``http_server_sync`` yield the base URL,
``replica_servers`` runs one per data dir on a shared store, and ``stdio_params`` is the same
``serve_command`` for the SDK's stdio client, which runs the process itself. ``loopback_app`` puts
an aiohttp app standing in for an outside service (an LLM API, a JWKS) on loopback.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from aiohttp import web
from mcp.client.stdio import StdioServerParameters

from deepr_mcp.app.root import Root
from deepr_mcp.config import Settings

ANNOUNCED = re.compile(r"http://127\.0\.0\.1:(\d+)/mcp")
START_TIMEOUT_S = 120
"""A guard only a hung server reaches: a clean-clone CI run on 2 busy cores (load 7-9) once took over 30 s
for a server to import, open its stores and bind."""


def server_env(data_dir: Path, **env: str) -> dict[str, str]:
    """Environment for a server subprocess: isolated data dir, no user config file."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("DEEPR_")}
    base.update({"DEEPR_DATA_DIR": str(data_dir), "DEEPR_CONFIG": "", "PYTHONUNBUFFERED": "1", **env})
    return base


def config_env(config: dict[str, Any]) -> dict[str, str]:
    """``{"jobs": {"step_delay_s": 0.2}}`` -> ``{"DEEPR_JOBS_STEP_DELAY_S": "0.2"}``."""
    env = {}
    for section, values in config.items():
        if isinstance(values, dict):
            env.update({f"DEEPR_{section}_{k}".upper(): str(v) for k, v in values.items()})
        else:
            env[f"DEEPR_{section}".upper()] = str(values)
    return env


def serve_command(*args: str, http: bool = True) -> list[str]:
    """``deepr-mcp serve`` as this interpreter runs it: over stdio, or HTTP on an ephemeral loopback port."""
    return [sys.executable, "-m", "deepr_mcp", "serve", *(["--http", "127.0.0.1:0"] if http else []), *args]


def stdio_params(data_dir: Path, **env: str) -> StdioServerParameters:
    """The stdio server for the SDK client, which starts and stops the process itself."""
    command = serve_command(http=False)
    return StdioServerParameters(command=command[0], args=command[1:], env=server_env(data_dir, **env))


@dataclass
class ServerProcess:
    """One ``serve --http`` process: ``base`` is ``http://127.0.0.1:PORT``, ``url`` its ``/mcp`` endpoint."""

    proc: subprocess.Popen
    log: Path
    base: str = ""

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def announced(self) -> bool:
        """Whether the server has said where it listens; fails (with what it said) if it died or took too long."""
        said = self.log.read_text(errors="replace")
        if match := ANNOUNCED.search(said):
            self.base = f"http://127.0.0.1:{match.group(1)}"
            return True
        assert self.proc.poll() is None, f"server exited with {self.proc.returncode}: {said}"
        return False

    def stop(self) -> None:
        stop_popen(self.proc)


def launch(data_dir: Path, *args: str, **env: str) -> ServerProcess:
    """Start ``serve --http 127.0.0.1:0 *args`` on ``data_dir`` and return it once it has announced its URL."""
    server = _spawn(data_dir, args, env)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not server.announced():
        if time.monotonic() > deadline:
            server.stop()
            raise AssertionError(
                f"server did not announce its URL in {START_TIMEOUT_S} s: {server.log.read_text(errors='replace')}"
            )
        time.sleep(0.05)
    return server


async def launch_async(data_dir: Path, *args: str, **env: str) -> ServerProcess:
    """``launch`` without blocking the event loop while the server starts."""
    server = _spawn(data_dir, args, env)
    try:
        with anyio.move_on_after(START_TIMEOUT_S):
            while not server.announced():  # noqa: ASYNC110 - the server announces itself in its log only
                await anyio.sleep(0.05)
        if not server.base:
            raise AssertionError(
                f"server did not announce its URL in {START_TIMEOUT_S} s: {server.log.read_text(errors='replace')}"
            )
    except BaseException:
        server.stop()
        raise
    return server


def _spawn(data_dir: Path, args: tuple[str, ...], env: dict[str, str]) -> ServerProcess:
    log = data_dir / f"server-{time.monotonic_ns()}.log"
    with log.open("w") as err:
        proc = subprocess.Popen(
            serve_command(*args), env=server_env(data_dir, **env), stdin=subprocess.DEVNULL, stderr=err
        )
    return ServerProcess(proc, log)


@asynccontextmanager
async def http_server(data_dir: Path, *extra_args: str, **env: str) -> AsyncIterator[str]:
    """A ``serve --http`` process for the test's duration; yields its base URL."""
    server = await launch_async(data_dir, *extra_args, **env)
    try:
        yield server.base
    finally:
        await anyio.to_thread.run_sync(server.stop)


@contextmanager
def http_server_sync(data_dir: Path, *extra_args: str, **env: str) -> Iterator[str]:
    """``http_server`` for synchronous tests (frameworks such as Haystack run their own loop)."""
    server = launch(data_dir, *extra_args, **env)
    try:
        yield server.base
    finally:
        server.stop()


@contextmanager
def replica_servers(dirs: list[Path], env: dict[str, str]) -> Iterator[tuple[list[subprocess.Popen], list[str]]]:
    """One server per data dir (replicas on one store): their processes (a test may kill one) and /mcp URLs."""
    servers: list[ServerProcess] = []
    try:
        for data_dir in dirs:
            servers.append(launch(data_dir, **env))
        yield [s.proc for s in servers], [s.url for s in servers]
    finally:
        for server in servers:
            server.stop()


def stop_popen(proc: subprocess.Popen) -> None:
    """Stop a ``subprocess.Popen``: terminate, then kill if it has not exited within 10 s."""
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


async def stop_process(proc: Any) -> None:
    """Stop an ``anyio`` process (the node upstreams): terminate, then kill if it has not exited within 10 s."""
    if proc.returncode is None:
        proc.terminate()
    with anyio.move_on_after(10) as scope:
        await proc.wait()
    if scope.cancelled_caught:
        proc.kill()
        await proc.wait()


@asynccontextmanager
async def loopback_app(app: web.Application) -> AsyncIterator[str]:
    """A small aiohttp app standing in for an outside service (an LLM API, a JWKS) on an ephemeral
    127.0.0.1 port; yields its base URL."""
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


@asynccontextmanager
async def inprocess_services(settings: Settings) -> AsyncIterator[Root]:
    async with Root(settings) as services:
        yield services


@asynccontextmanager
async def inprocess_http(services: Root) -> AsyncIterator[str]:
    """The real HTTP app for ``services`` under uvicorn on an ephemeral loopback port, in this process.

    For tests that need the server's internals (e.g. to flood one subscriber) and real sockets.
    """
    import uvicorn

    from deepr_mcp.transports.http import bind_socket, build_http_app

    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(build_http_app(services), log_level="warning", lifespan="on"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: server.serve(sockets=[sock]))
        with anyio.fail_after(30):
            while not server.started:  # noqa: ASYNC110 - uvicorn exposes a flag, not an event
                await anyio.sleep(0.01)
        try:
            yield f"http://127.0.0.1:{sock.getsockname()[1]}"
        finally:
            server.should_exit = True
