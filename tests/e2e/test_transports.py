"""Transport edges: malformed JSON-RPC, Host/Origin checks, body limit, bearer auth, legacy SSE."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import aiohttp
import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.clients import connect, structured, text_of
from tests.servers import http_server, server_env

ACCEPT = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def initialize(version: str = "2025-11-25", id_: int = 1) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }


def sse_json(body: str) -> dict:
    """The JSON-RPC message carried by a streamable-HTTP SSE body (or a plain JSON body)."""
    for line in body.splitlines():
        if line.startswith("data:"):
            return json.loads(line[5:])
    return json.loads(body)


async def test_stdio_answers_malformed_lines_and_keeps_serving(data_dir: Path) -> None:
    lines = [
        "this is not json",
        json.dumps(initialize()),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "[1, 2]",
        json.dumps({"id": 6}),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}),
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": 5}}),
        json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}),
    ]

    def run() -> list[dict]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "deepr_mcp", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=server_env(data_dir),
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()
        replies: list[dict] = []
        while not any(r.get("id") == 5 for r in replies):
            line = proc.stdout.readline()
            assert line, "server closed stdout before answering everything"
            replies.append(json.loads(line))
        proc.stdin.close()
        proc.wait(timeout=30)
        assert proc.stderr is not None
        assert "Traceback" not in proc.stderr.read()
        return replies

    replies = await anyio.to_thread.run_sync(run)
    errors = [r for r in replies if r.get("id") is None and "error" in r]
    assert [e["error"]["code"] for e in errors] == [-32700, -32600, -32600]
    assert "not valid JSON" in errors[0]["error"]["message"]
    by_id = {r["id"]: r for r in replies if r.get("id") is not None}
    assert by_id[1]["result"]["protocolVersion"] == "2025-11-25"
    assert by_id[3]["error"]["code"] == -32601
    assert by_id[4]["error"]["code"] == -32602
    assert [t["name"] for t in by_id[5]["result"]["tools"]] == ["tool_search", "tool_call"]


async def test_http_rejects_misuse_and_keeps_serving(data_dir: Path) -> None:
    async with http_server(data_dir) as base, aiohttp.ClientSession() as http:
        url = f"{base}/mcp"
        async with http.post(url, data="not json", headers=ACCEPT) as resp:
            assert resp.status == 400
            assert (await resp.json())["error"]["code"] == -32700
        async with http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": 7}, headers=ACCEPT) as resp:
            assert resp.status == 400
        async with http.post(url, json=initialize(), headers={**ACCEPT, "Origin": "http://evil.example"}) as resp:
            assert resp.status == 403
        async with http.post(url, json=initialize(), headers={**ACCEPT, "Host": "evil.example"}) as resp:
            assert resp.status == 421
        async with http.post(url, data=b"x" * 2_000_000, headers=ACCEPT) as resp:
            assert resp.status == 413
        async with http.post(f"{base}/messages/?session_id=nope", data="x", headers=ACCEPT) as resp:
            assert resp.status == 400
        # Still serving, and a same-origin browser-style request is fine.
        origin = base
        async with http.post(url, json=initialize(), headers={**ACCEPT, "Origin": origin}) as resp:
            assert resp.status == 200
            assert sse_json(await resp.text())["result"]["serverInfo"]["name"] == "deepr-mcp"


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
async def test_every_handshake_version_is_served(version: str, data_dir: Path) -> None:
    async with http_server(data_dir) as base, aiohttp.ClientSession() as http:
        async with http.post(f"{base}/mcp", json=initialize(version), headers=ACCEPT) as resp:
            assert resp.status == 200
            result = sse_json(await resp.text())["result"]
            assert result["protocolVersion"] == version
            assert result["capabilities"]["tools"]["listChanged"] is True


async def test_bearer_token_guards_both_transports(data_dir: Path) -> None:
    async with http_server(data_dir, "--auth-token", "s3cret-token-01234567") as base, aiohttp.ClientSession() as http:
        for path, method in [("/mcp", "POST"), ("/sse", "GET"), ("/messages/?session_id=x", "POST")]:
            async with http.request(method, base + path, json=initialize(), headers=ACCEPT) as resp:
                assert resp.status == 401
                assert "Bearer" in resp.headers["www-authenticate"]
            bad = {**ACCEPT, "Authorization": "Bearer wrong"}
            async with http.request(method, base + path, json=initialize(), headers=bad) as resp:
                assert resp.status == 401
                assert (await resp.json())["error"] == "invalid_token"
        good = {"Authorization": "Bearer s3cret-token-01234567"}
        async with httpx2.AsyncClient(headers=good) as authed:
            async with Client(streamable_http_client(f"{base}/mcp", http_client=authed), mode="legacy") as client:
                result = await client.call_tool("tool_call", {"name": "server_info", "arguments": {}})
                assert structured(result)["name"] == "deepr-mcp"


def test_non_loopback_bind_needs_a_token(data_dir: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "deepr_mcp", "serve", "--http", "0.0.0.0:0"],
        capture_output=True,
        text=True,
        env=server_env(data_dir),
        timeout=60,
    )
    assert proc.returncode == 2
    assert "refusing to bind 0.0.0.0" in proc.stderr and "DEEPR_AUTH_TOKEN" in proc.stderr


async def test_legacy_sse_transport_serves_the_gateway(data_dir: Path) -> None:
    async with connect("sse", "legacy", data_dir) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["tool_search", "tool_call"]
        found = structured(await client.call_tool("tool_search", {"query": "server version"}))
        assert found["hits"][0]["name"] == "server_info"
        result = await client.call_tool("tool_call", {"name": "server_info", "arguments": {}})
        assert not result.is_error, text_of(result)
        bad = await client.call_tool("tool_search", {"query": ""})
        assert bad.is_error
