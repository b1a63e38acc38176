"""Malformed JSON-RPC gets -32600 (or -32700) naming the fault on every transport and era.

Each invalid shape goes to stdio (a real subprocess), streamable HTTP in the handshake era
(2025-11-25, with its Mcp-Session-Id), streamable HTTP in the modern era (2026-07-28, stateless)
and the legacy SSE ``/messages/`` endpoint; every one is answered, none is taken for a
notification, the connection keeps serving, and the legacy endpoint logs one WARNING line and no
traceback per refusal.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import anyio
import pytest

from tests.clients import HANDSHAKE_VERSION, MODERN_VERSION
from tests.servers import inprocess_http, inprocess_services, server_env

ACCEPT = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "edges", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}

# (raw body, expected code, words the message must contain)
SHAPES: list[tuple[str, int, str]] = [
    ("not json", -32700, "not valid JSON (Expecting value at line 1 column 1)"),
    ("[" * 5000 + "]" * 5000, -32700, "nests arrays or objects too deeply"),
    ('{"jsonrpc": "2.0", "id": ' + "9" * 5000 + ', "method": "ping"}', -32700, "a number literal too long to read"),
    ('"just a string"', -32600, "a string, not a JSON object"),
    ("42", -32600, "an integer (42), not a JSON object"),
    ('[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600, "batches"),
    ("[]", -32600, "batches"),
    ('{"id": 1, "method": "ping"}', -32600, "jsonrpc member is missing"),
    ('{"jsonrpc": "1.0", "id": 1, "method": "ping"}', -32600, "jsonrpc must be the string '2.0'"),
    ('{"jsonrpc": 2.0, "id": 1, "method": "ping"}', -32600, "jsonrpc must be the string '2.0'"),
    ('{"jsonrpc": "2.0", "id": 1, "method": 7}', -32600, "method must be a non-empty string"),
    ('{"jsonrpc": "2.0", "id": 1, "method": ""}', -32600, "non-empty string, got an empty string"),
    ('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": 3}', -32600, "params must be an object"),
    ('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}', -32600, "params must be an object"),
    ('{"jsonrpc": "2.0", "method": "notifications/x", "params": "s"}', -32600, "params must be an object"),
    ('{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', -32600, "id must be a string or an integer"),
    ('{"jsonrpc": "2.0", "id": {}, "method": "ping"}', -32600, "got an object"),
    ('{"jsonrpc": "2.0", "id": [], "method": "ping"}', -32600, "got an array"),
    ('{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600, "got a boolean"),
    ('{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600, "got null"),
    ('{"jsonrpc": "2.0", "id": 1}', -32600, "neither a method"),
    ('{"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}}', -32600, "not both"),
    ('{"jsonrpc": "2.0", "id": 1, "error": "boom"}', -32600, "integer code and a string message"),
]


def assert_refusal(reply: dict[str, Any], code: int, words: str) -> None:
    assert reply["jsonrpc"] == "2.0" and reply["id"] is None, reply
    assert reply["error"]["code"] == code, reply
    message = reply["error"]["message"]
    assert words in message, message
    assert "validation error" not in message.lower() and "pydantic" not in message, message
    assert "string or integer" in message or code == -32700  # says what is allowed


def body_of(text: str) -> dict[str, Any]:
    for line in text.splitlines():
        if line.startswith("data:"):
            return json.loads(line[5:])
    return json.loads(text)


def test_stdio_refuses_every_invalid_shape(data_dir: Path) -> None:
    ping = json.dumps({"jsonrpc": "2.0", "id": "last", "method": "ping"})
    init = {"protocolVersion": HANDSHAKE_VERSION, "capabilities": {}, "clientInfo": {"name": "e", "version": "1"}}
    lines = [json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": init})]
    lines += [json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]
    lines += [raw.replace("\n", " ") for raw, _, _ in SHAPES] + [ping]
    proc = subprocess.Popen(
        [sys.executable, "-m", "deepr_mcp", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(data_dir),
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write("\n".join(lines) + "\n")
    proc.stdin.flush()
    replies: list[dict[str, Any]] = []
    while not any(r.get("id") == "last" for r in replies):  # the ping after every refusal is answered
        line = proc.stdout.readline()
        assert line, f"stdout closed early; stderr: {proc.stderr.read()}"
        replies.append(json.loads(line))
    proc.stdin.close()
    proc.wait(timeout=30)
    stderr = proc.stderr.read()
    refusals = [r for r in replies if r.get("id") is None]
    assert len(refusals) == len(SHAPES), replies
    for reply, (_, code, words) in zip(refusals, SHAPES, strict=True):
        assert_refusal(reply, code, words)
    assert replies[-1] == {"jsonrpc": "2.0", "id": "last", "result": {}}
    assert "Traceback" not in stderr


@asynccontextmanager
async def http_app(data_dir: Path) -> AsyncIterator[str]:
    from deepr_mcp.config import Settings

    async with inprocess_services(Settings(data_dir=data_dir)) as services, inprocess_http(services) as base:
        yield base


async def handshake_session(http: aiohttp.ClientSession, url: str) -> dict[str, str]:
    init = {"protocolVersion": HANDSHAKE_VERSION, "capabilities": {}, "clientInfo": {"name": "e", "version": "1"}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}
    async with http.post(url, json=body, headers=ACCEPT) as resp:
        assert resp.status == 200
        session = resp.headers["mcp-session-id"]
    headers = {**ACCEPT, "mcp-session-id": session, "mcp-protocol-version": HANDSHAKE_VERSION}
    async with http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers) as resp:
        assert resp.status == 202
    return headers


async def test_streamable_http_refuses_every_invalid_shape_in_both_eras(data_dir: Path) -> None:
    async with http_app(data_dir) as base, aiohttp.ClientSession() as http:
        url = f"{base}/mcp"
        handshake = await handshake_session(http, url)
        modern = {**ACCEPT, "mcp-protocol-version": MODERN_VERSION}
        for era, headers in [("handshake", handshake), ("modern", modern)]:
            for raw, code, words in SHAPES:
                async with http.post(url, data=raw, headers=headers) as resp:
                    assert resp.status == 400, (era, raw)
                    assert_refusal(await resp.json(), code, words)
        # Both eras still serve well-formed requests afterwards.
        async with http.post(url, json={"jsonrpc": "2.0", "id": "p", "method": "ping"}, headers=handshake) as resp:
            assert body_of(await resp.text())["result"] == {}
        listing = {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"_meta": MODERN_META}}
        async with http.post(url, json=listing, headers={**modern, "mcp-method": "tools/list"}) as resp:
            assert resp.status == 200, await resp.text()
            assert [t["name"] for t in body_of(await resp.text())["result"]["tools"]] == ["tool_search", "tool_call"]


async def open_legacy_session(http: aiohttp.ClientSession, base: str) -> tuple[aiohttp.ClientResponse, str]:
    resp = await http.get(f"{base}/sse", headers={"accept": "text/event-stream"})
    async for raw in resp.content:
        line = raw.decode().strip()
        if line.startswith("data:"):
            return resp, base + line[5:].strip()
    raise AssertionError("no endpoint event")


async def test_legacy_sse_refuses_every_invalid_shape_with_one_warning(
    data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with http_app(data_dir) as base, aiohttp.ClientSession() as http:
        stream, endpoint = await open_legacy_session(http, base)
        for raw, code, words in SHAPES:
            caplog.clear()
            async with http.post(endpoint, data=raw, headers=ACCEPT) as resp:
                assert resp.status == 400, raw
                assert_refusal(await resp.json(), code, words)
            warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
            assert len(warnings) == 1, [r.getMessage() for r in warnings]
            assert warnings[0].levelno == logging.WARNING and "malformed legacy SSE POST" in warnings[0].getMessage()
            assert all(r.exc_info is None for r in caplog.records), raw
        # The session still answers a well-formed ping, on its event stream.
        async with http.post(endpoint, json={"jsonrpc": "2.0", "id": "p", "method": "ping"}) as resp:
            assert resp.status == 202
        with anyio.fail_after(10):
            async for raw_line in stream.content:
                line = raw_line.decode().strip()
                if line.startswith("data:") and json.loads(line[5:]).get("id") == "p":
                    break
        stream.close()


async def test_a_rebinding_attempt_with_a_bad_body_is_refused_as_a_rebinding(data_dir: Path) -> None:
    async with http_app(data_dir) as base, aiohttp.ClientSession() as http:
        for path in ("/mcp", "/messages/?session_id=" + "0" * 32):
            async with http.post(base + path, data="[]", headers={**ACCEPT, "Origin": "http://evil.example"}) as resp:
                assert resp.status == 403, path
