"""Federating servers nobody here wrote: the MCP reference servers from npm, pinned.

``server-everything`` over stdio, streamable HTTP and legacy SSE (detected from the URL), and
``server-filesystem`` over stdio. Installed into .ci/upstreams when missing; skipped in a dev
run without node/npm, a failure under CI=true (``npm_server_or_skip`` in tests/upstreams/upstream_servers.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from tests.clients import ERAS, structured, text_of
from tests.upstreams.upstream_servers import free_port, node_binary, node_http_server, npm_server_or_skip


@asynccontextmanager
async def federated(data_dir: Path, upstream: dict[str, Any], era: str = "legacy") -> AsyncIterator[Client]:
    settings = Settings(data_dir=data_dir, gateway={"mode": "full"}, upstreams=[upstream])
    async with Root(settings) as root, Client(build_server(root), mode=ERAS[era]) as client:
        yield client


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_everything_over_stdio(era: str, empty_data_dir: Path) -> None:
    script = npm_server_or_skip("server-everything")
    node = node_binary()
    upstream = {"name": "every", "command": node, "args": [str(script), "stdio"]}
    async with federated(empty_data_dir, upstream, era) as client:
        hits = structured(await client.call_tool("tool_search", {"query": "echo back the message", "limit": 3}))
        assert "every_echo" in [h["name"] for h in hits["hits"]]

        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert {"every_echo", "every_get-sum", "every_get-tiny-image"} <= set(listed)
        assert listed["every_echo"].annotations is not None and listed["every_echo"].annotations.read_only_hint

        echoed = await client.call_tool("tool_call", {"name": "every_echo", "arguments": {"message": "hi"}})
        assert not echoed.is_error and text_of(echoed) == "Echo: hi"

        weather = await client.call_tool("every_get-structured-content", {"location": "Chicago"})
        assert not weather.is_error
        assert set(weather.structured_content or {}) == {"temperature", "conditions", "humidity"}

        image = await client.call_tool("every_get-tiny-image", {})
        assert any(isinstance(c, types.ImageContent) for c in image.content)

        wrong = await client.call_tool("every_get-sum", {"a": "one", "b": 2})
        assert wrong.is_error and "invalid arguments for every_get-sum" in text_of(wrong)


@pytest.mark.parametrize(
    ("served", "path", "setting", "used"),
    [
        ("streamableHttp", "/mcp", "auto", "http"),
        ("sse", "/sse", "auto", "sse"),  # streamable HTTP answered 404: fell back to legacy SSE
        ("sse", "/sse", "sse", "sse"),
    ],
)
async def test_everything_over_http(served: str, path: str, setting: str, used: str, empty_data_dir: Path) -> None:
    script = npm_server_or_skip("server-everything")
    async with node_http_server(script, served) as base:
        upstream = {"name": "every", "url": base + path, "transport": setting}
        settings = Settings(data_dir=empty_data_dir, gateway={"mode": "full"}, upstreams=[upstream])
        async with Root(settings) as root, Client(build_server(root), mode="legacy") as client:
            summed = await client.call_tool("every_get-sum", {"a": 2, "b": 40})
            assert not summed.is_error, text_of(summed)
            assert text_of(summed) == "The sum of 2 and 40 is 42."
            found = structured(await client.call_tool("tool_search", {"query": "sum of two numbers"}))
            assert found["hits"][0]["name"] == "every_get-sum"
            assert root.upstreams.connections["every"].kind == used


async def test_filesystem_over_stdio(empty_data_dir: Path, tmp_path: Path) -> None:
    script = npm_server_or_skip("server-filesystem")
    allowed = tmp_path / "shared"
    allowed.mkdir()
    (allowed / "notes.txt").write_text("cable repeaters every 70 km\n")
    (tmp_path / "secret.txt").write_text("not for upstream eyes")
    node = node_binary()
    upstream = {"name": "fs", "command": node, "args": [str(script), str(allowed)], "deny": ["write_*", "edit_*"]}
    async with federated(empty_data_dir, upstream) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        assert "fs_read_text_file" in listed
        assert not {"fs_write_file", "fs_edit_file"} & listed  # denied by glob

        read = await client.call_tool("fs_read_text_file", {"path": str(allowed / "notes.txt")})
        assert not read.is_error and "repeaters every 70 km" in text_of(read)

        outside = await client.call_tool("fs_read_text_file", {"path": str(tmp_path / "secret.txt")})
        assert outside.is_error and "not for upstream eyes" not in text_of(outside)  # the upstream's own refusal

        denied = await client.call_tool("tool_call", {"name": "fs_write_file", "arguments": {"path": "x"}})
        assert denied.is_error and "unknown tool 'fs_write_file'" in text_of(denied)


async def test_an_http_upstream_that_restarts_gets_a_new_session(empty_data_dir: Path) -> None:
    script = npm_server_or_skip("server-everything")
    port = free_port()
    upstream = {"name": "every", "url": f"http://127.0.0.1:{port}/mcp"}
    settings = Settings(data_dir=empty_data_dir, upstreams=[upstream])
    async with Root(settings) as root, Client(build_server(root), mode="legacy") as client:
        async with node_http_server(script, "streamableHttp", port):
            assert not (await client.call_tool("every_get-sum", {"a": 1, "b": 2})).is_error
        async with node_http_server(script, "streamableHttp", port):  # a new process: it never saw our session
            summed = await client.call_tool("every_get-sum", {"a": 1, "b": 2})  # read-only: resent on a new session
            assert not summed.is_error and text_of(summed) == "The sum of 1 and 2 is 3.", text_of(summed)
        async with node_http_server(script, "streamableHttp", port):
            toggled = await client.call_tool("every_toggle-simulated-logging", {})  # not idempotent: not resent
            assert toggled.is_error and "refused the request at the HTTP level; a new session is opened" in text_of(
                toggled
            )
            again = await client.call_tool("every_toggle-simulated-logging", {})
            assert not again.is_error, text_of(again)
        assert root.upstreams.connections["every"].describe() == "ready"
