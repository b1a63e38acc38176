"""Strict Host and Origin checks (DNS-rebinding protection) in front of the SDK's transports.

The SDK matches a ``host:*`` pattern by prefix (``value.startswith("127.0.0.1:")``), so
``Host: 127.0.0.1:8765.evil.com`` or ``Origin: http://localhost:80@evil.example`` pass it. Here
each header is parsed whole (RFC 9110 ``host[:port]``, RFC 6454 ``scheme://host[:port]``: no
userinfo, path, query or trailing junk), then compared by parts: host (case-insensitive) and
port, where ``*`` in a pattern is any port. The SDK's own check still runs after this one.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["Endpoint", "HostOriginGuard", "parse_host", "parse_origin"]

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = rf"(?P<host>\[[0-9A-Fa-f:.]+\]|{_LABEL}(?:\.{_LABEL})*)"
_PORT = r"(?::(?P<port>\d{1,5}|\*))?"
_HOST_RE = re.compile(rf"{_HOST}{_PORT}")
_ORIGIN_RE = re.compile(rf"(?P<scheme>https?)://{_HOST}{_PORT}")


@dataclass(frozen=True, slots=True)
class Endpoint:
    scheme: str | None
    host: str
    port: str | None
    """Digits, ``*`` (patterns only: any port) or ``None`` (no port given)."""

    def matches(self, pattern: Endpoint) -> bool:
        if pattern.scheme != self.scheme or pattern.host != self.host:
            return False
        return pattern.port == "*" or pattern.port == self.port


def _endpoint(match: re.Match[str] | None, *, wildcard: bool) -> Endpoint | None:
    if match is None:
        return None
    host, port = match["host"].lower(), match["port"]
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return None
    if port == "*" and not wildcard:
        return None
    if port not in (None, "*") and not 0 < int(port) <= 65535:
        return None
    scheme = match.groupdict().get("scheme")
    return Endpoint(scheme.lower() if scheme else None, host, port)


def parse_host(value: str, *, wildcard: bool = False) -> Endpoint | None:
    """``host[:port]`` exactly, or ``None``; ``wildcard`` allows ``:*`` (for patterns)."""
    return _endpoint(_HOST_RE.fullmatch(value), wildcard=wildcard)


def parse_origin(value: str, *, wildcard: bool = False) -> Endpoint | None:
    """``http(s)://host[:port]`` exactly, or ``None``."""
    return _endpoint(_ORIGIN_RE.fullmatch(value), wildcard=wildcard)


class HostOriginGuard:
    """421 for a Host, 403 for an Origin that is malformed or not allowed; absent Origin passes."""

    def __init__(self, app: ASGIApp, allowed_hosts: list[str], allowed_origins: list[str]) -> None:
        self.app = app
        self.hosts = [p for v in allowed_hosts if (p := parse_host(v, wildcard=True)) is not None]
        self.origins = [p for v in allowed_origins if (p := parse_origin(v, wildcard=True)) is not None]

    def host_ok(self, value: str | None) -> bool:
        parsed = parse_host(value) if value else None
        return parsed is not None and any(parsed.matches(p) for p in self.hosts)

    def origin_ok(self, value: str | None) -> bool:
        if value is None:
            return True  # same-origin and non-browser requests send none
        parsed = parse_origin(value)
        return parsed is not None and any(parsed.matches(p) for p in self.origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers: dict[bytes, list[bytes]] = {}
            for key, val in scope["headers"]:
                headers.setdefault(key.lower(), []).append(val)
            hosts, origins = headers.get(b"host", []), headers.get(b"origin", [])
            host = hosts[0].decode("latin-1") if len(hosts) == 1 else None
            if not self.host_ok(host):
                await PlainTextResponse("Invalid Host header", status_code=421)(scope, receive, send)
                return
            origin = origins[0].decode("latin-1") if len(origins) == 1 else (None if not origins else "\x00")
            if not self.origin_ok(origin):
                await PlainTextResponse("Invalid Origin header", status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)
