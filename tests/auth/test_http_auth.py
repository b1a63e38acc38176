"""Bearer tokens over real HTTP: blank tokens are no tokens, bad ones get 401, sessions stay with their credential."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from deepr_mcp.auth.verifiers import sha256_hex
from deepr_mcp.config import Settings
from tests.clients import call
from tests.principals import as_principal, principal_server, principal_token
from tests.servers import http_server, inprocess_http, inprocess_services, server_env

ACCEPT = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
GOOD = "good-token-0123456789abcdef"


def serve_public(data_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deepr_mcp", "serve", "--http", "0.0.0.0:0", *args],
        capture_output=True,
        text=True,
        env=server_env(data_dir, **env),
        timeout=60,
    )


@pytest.mark.parametrize("blank", ["", " ", "\t \n"])
def test_a_blank_token_is_no_token_so_a_public_bind_is_refused(blank: str, data_dir: Path) -> None:
    proc = serve_public(data_dir, DEEPR_AUTH_TOKEN=blank)
    assert proc.returncode == 2, proc.stderr
    assert "refusing to bind 0.0.0.0" in proc.stderr and "no auth token is set" in proc.stderr


def test_a_blank_flag_or_toml_token_is_no_token_either(data_dir: Path) -> None:
    assert serve_public(data_dir, "--auth-token", " ").returncode == 2
    config = data_dir / "config.toml"
    config.write_text('auth_token = "   "\n')
    proc = serve_public(data_dir, DEEPR_CONFIG=str(config))
    assert proc.returncode == 2 and "refusing to bind" in proc.stderr


def test_a_short_token_is_a_configuration_error(data_dir: Path) -> None:
    proc = serve_public(data_dir, DEEPR_AUTH_TOKEN="hunter2")
    assert proc.returncode == 2
    assert "auth_token" in proc.stderr and "at least 16 characters (got 7)" in proc.stderr
    assert "Traceback" not in proc.stderr


async def test_a_blank_token_on_loopback_serves_as_before(data_dir: Path) -> None:
    async with http_server(data_dir, DEEPR_AUTH_TOKEN=" ") as base, aiohttp.ClientSession() as http:
        async with http.post(f"{base}/mcp", json=INIT, headers=ACCEPT) as resp:
            assert resp.status == 200


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "",
        "Bearer",
        "Bearer ",
        "Bearer    ",
        "Basic Z29vZDp0b2tlbg==",
        f"Bearer {GOOD} ",
        f"Bearer {GOOD}x",
        f"Bearer {GOOD[:-1]}",
        f"Bearer  {GOOD}",
        f"Token {GOOD}",
        f"Bearer {sha256_hex(GOOD)}",
    ],
)
async def test_only_the_exact_token_gets_in(authorization: str | None, data_dir: Path) -> None:
    settings = Settings(data_dir=data_dir, auth_token=GOOD)
    async with inprocess_services(settings) as services, inprocess_http(services) as base:
        async with aiohttp.ClientSession() as http:
            headers = dict(ACCEPT) if authorization is None else {**ACCEPT, "Authorization": authorization}
            for method, path in [("POST", "/mcp"), ("GET", "/sse"), ("POST", "/messages/?session_id=x")]:
                async with http.request(method, base + path, json=INIT, headers=headers) as resp:
                    assert resp.status == 401, (method, path)
                    assert resp.headers["www-authenticate"].startswith("Bearer ")
                    assert (await resp.json())["error"] == "invalid_token"
            async with http.post(f"{base}/mcp", json=INIT, headers={**ACCEPT, "Authorization": f"Bearer {GOOD}"}) as ok:
                assert ok.status == 200


async def test_the_single_token_is_the_owner_with_every_scope(data_dir: Path) -> None:
    settings = Settings(data_dir=data_dir, auth_token=GOOD)
    async with inprocess_services(settings) as services, inprocess_http(services) as base:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {GOOD}"}) as http:
            async with Client(streamable_http_client(f"{base}/mcp", http_client=http), mode="legacy") as client:
                cid = (await call(client, "campaign_start", {"question": "Why do cables fail?"}))["campaign_id"]
                listed = await call(client, "campaign_list", {})
                assert listed["campaigns"][0] == {**listed["campaigns"][0], "campaign_id": cid, "owner": "owner"}


async def test_a_principal_given_by_its_sha256_gets_in(data_dir: Path) -> None:
    token = principal_token("hashed")
    auth = {"principals": [{"name": "hashed", "token_sha256": sha256_hex(token).upper(), "scopes": ["read"]}]}
    settings = Settings(data_dir=data_dir, auth=auth)
    async with inprocess_services(settings) as services, inprocess_http(services) as base:
        async with as_principal(base, "hashed") as client:
            assert (await call(client, "campaign_list", {}))["total"] == 0


async def test_another_principal_cannot_use_a_streamable_session(data_dir: Path) -> None:
    async with principal_server(data_dir) as (_, base), aiohttp.ClientSession() as http:
        mine = {**ACCEPT, "Authorization": f"Bearer {principal_token('approver')}"}
        async with http.post(f"{base}/mcp", json=INIT, headers=mine) as resp:
            assert resp.status == 200
            session = resp.headers["mcp-session-id"]
        answer = {"jsonrpc": "2.0", "id": 0, "result": {"action": "accept", "content": {"decision": "abort"}}}
        theirs = {**ACCEPT, "Authorization": f"Bearer {principal_token('other')}", "mcp-session-id": session}
        for body in [answer, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]:
            async with http.post(f"{base}/mcp", json=body, headers=theirs) as resp:
                assert resp.status == 404  # exactly as if the session did not exist
        async with http.post(f"{base}/mcp", json=answer, headers={**ACCEPT, "mcp-session-id": session}) as resp:
            assert resp.status == 401


async def test_another_principal_cannot_post_to_a_legacy_sse_session(data_dir: Path) -> None:
    async with principal_server(data_dir) as (_, base), aiohttp.ClientSession() as http:
        mine = {"Authorization": f"Bearer {principal_token('approver')}"}
        async with http.get(f"{base}/sse", headers=mine) as stream:
            endpoint = ""
            async for line in stream.content:
                if line.startswith(b"data:"):
                    endpoint = line[5:].strip().decode()
                    break
            assert "session_id=" in endpoint
            theirs = {**ACCEPT, "Authorization": f"Bearer {principal_token('other')}"}
            async with http.post(base + endpoint, json=INIT, headers=theirs) as resp:
                assert resp.status == 404
            async with http.post(base + endpoint, json=INIT, headers={**ACCEPT, **mine}) as resp:
                assert resp.status == 202
