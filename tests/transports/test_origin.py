"""Strict Host/Origin parsing: the values the SDK's prefix match lets through are refused."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest
from hypothesis import given
from hypothesis import strategies as st

from deepr_mcp.config import Settings
from deepr_mcp.transports.http import security_settings
from deepr_mcp.transports.origin import HostOriginGuard, parse_host, parse_origin
from tests.servers import inprocess_http, inprocess_services

ACCEPT = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}

HOSTILE_HOSTS = [
    "127.0.0.1:8765.evil.com",
    "localhost:80@evil",
    "localhost:80@evil.example:80",
    "127.0.0.1:80/evil",
    "127.0.0.1:80?x",
    "127.0.0.1:80#x",
    "127.0.0.1:80 evil",
    "127.0.0.1:",
    "127.0.0.1:99999",
    "127.0.0.1:-1",
    "127.0.0.1.evil.com:80",
    "evil.com:80",
    "[::1]x:80",
    "[::1:80",
    "[zz::1]:80",
    "localhost:80:80",
    "",
    " localhost:80",
]
HOSTILE_ORIGINS = [
    "http://localhost:80@evil.example",
    "http://localhost:80.evil.example",
    "http://127.0.0.1:8765.evil.com",
    "http://127.0.0.1:80/path",
    "http://127.0.0.1:80/",
    "http://user@127.0.0.1:80",
    "https://evil.example",
    "ftp://127.0.0.1:80",
    "null",
    "http://127.0.0.1.evil.com:80",
    "http://evil.example#http://localhost:80",
]


@pytest.mark.parametrize("value", HOSTILE_HOSTS)
def test_hostile_hosts_are_refused(value: str) -> None:
    guard = HostOriginGuard(None, security_settings(Settings()).allowed_hosts, [])  # type: ignore[arg-type]
    assert not guard.host_ok(value)


@pytest.mark.parametrize("value", HOSTILE_ORIGINS)
def test_hostile_origins_are_refused(value: str) -> None:
    guard = HostOriginGuard(None, [], security_settings(Settings()).allowed_origins)  # type: ignore[arg-type]
    assert not guard.origin_ok(value)


def test_what_is_allowed_is_still_allowed() -> None:
    settings = Settings()
    settings.http.allowed_hosts = ["research.example.org"]
    settings.http.allowed_origins = ["https://app.example.org"]
    security = security_settings(settings)
    guard = HostOriginGuard(None, security.allowed_hosts, security.allowed_origins)  # type: ignore[arg-type]
    for host in ["127.0.0.1:8765", "localhost:1", "LOCALHOST:65535", "[::1]:8765", "research.example.org"]:
        assert guard.host_ok(host), host
    assert not guard.host_ok("research.example.org:8765")  # a pattern without a port means no port
    for origin in [None, "http://127.0.0.1:8765", "http://localhost:3000", "https://app.example.org"]:
        assert guard.origin_ok(origin), origin
    assert not guard.origin_ok("https://app.example.org:8443")


@given(st.text(max_size=40))
def test_any_accepted_host_is_exactly_an_allowed_host_and_port(suffix: str) -> None:
    value = "127.0.0.1:" + suffix
    parsed = parse_host(value)
    if parsed is not None:
        assert parsed.host == "127.0.0.1" and parsed.port is not None and parsed.port.isdigit()
        assert value == f"127.0.0.1:{parsed.port}"


@given(st.text(max_size=40))
def test_any_accepted_origin_has_no_trailing_part(suffix: str) -> None:
    value = "http://localhost:" + suffix
    parsed = parse_origin(value)
    if parsed is not None:
        assert value == f"http://{parsed.host}:{parsed.port}" and parsed.port.isdigit()  # type: ignore[union-attr]


async def test_hostile_headers_over_real_http(data_dir: Path) -> None:
    async with inprocess_services(Settings(data_dir=data_dir)) as services, inprocess_http(services) as base:
        port = base.rsplit(":", 1)[1]
        async with aiohttp.ClientSession() as http:
            for host in [f"127.0.0.1:{port}.evil.com", "localhost:80@evil", f"127.0.0.1:{port}/x", "evil.example"]:
                for method, path in [("POST", "/mcp"), ("GET", "/sse")]:
                    async with http.request(method, base + path, json=INIT, headers={**ACCEPT, "Host": host}) as r:
                        assert r.status == 421, (host, path)
            for origin in [f"http://127.0.0.1:{port}.evil.com", "http://localhost:80@evil.example", "null"]:
                async with http.post(f"{base}/mcp", json=INIT, headers={**ACCEPT, "Origin": origin}) as r:
                    assert r.status == 403, origin
            async with http.post(f"{base}/mcp", json=INIT, headers={**ACCEPT, "Origin": base}) as r:
                assert r.status == 200
