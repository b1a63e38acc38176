"""One HTTP process, two transports: streamable HTTP at ``/mcp`` and legacy HTTP+SSE at ``/sse``.

Both are the SDK's own transports over the same ``Server`` and the same ``Root``, so a
client on either sees the same campaigns. Host/Origin checks (DNS-rebinding protection)
and a request-body limit apply to both; a bearer token guards both when configured. Malformed
JSON-RPC bodies are answered by ``jsonrpc_guard`` the same way on both, before the SDK parses them.
"""

from __future__ import annotations

import logging
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import uvicorn
from mcp.server.sse import SseServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from deepr_mcp import __version__
from deepr_mcp.app.root import Root
from deepr_mcp.app.server import DeeprServer, build_server
from deepr_mcp.auth.oauth import oauth_layer, public_hosts_and_origins
from deepr_mcp.auth.verifiers import token_verifier
from deepr_mcp.config import Settings
from deepr_mcp.errors import InvalidInput
from deepr_mcp.hosts import is_loopback_host
from deepr_mcp.transports.auth import auth_middleware, require_auth
from deepr_mcp.transports.jsonrpc_guard import guard_jsonrpc
from deepr_mcp.transports.origin import HostOriginGuard
from deepr_mcp.transports.sessions import ReapingSessionManager, StreamCap
from deepr_mcp.transports.sse_lane import GetStreamLanes

logger = logging.getLogger(__name__)

MCP_PATH = "/mcp"
SSE_PATH = "/sse"
SSE_MESSAGES_PATH = "/messages/"


def security_settings(settings: Settings) -> TransportSecuritySettings:
    """Accept the loopback names (any port), the bind host itself, and what the config adds."""
    host = settings.http.host
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", *settings.http.allowed_hosts]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*", *settings.http.allowed_origins]
    if not is_loopback_host(host) and host not in ("0.0.0.0", "::"):
        hosts.append(f"{host}:*")
        origins += [f"http://{host}:*", f"https://{host}:*"]
    public_hosts, public_origins = public_hosts_and_origins(settings)  # OAuth's resource URL
    hosts, origins = hosts + public_hosts, origins + public_origins
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


class SseEndpoint:
    """ASGI endpoint for ``GET /sse``: one legacy connection per open event stream."""

    def __init__(self, server: DeeprServer, transport: SseServerTransport) -> None:
        self.server = server
        self.transport = transport

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with self.transport.connect_sse(scope, receive, send) as (read_stream, write_stream):
                await self.server.run(read_stream, write_stream, self.server.create_initialization_options())
        except ValueError:
            # connect_sse already answered (e.g. 403 for a rejected Host/Origin); nothing left to send.
            logger.debug("legacy SSE connection refused")


def build_http_app(services: Root) -> Starlette:
    settings = services.settings
    server = build_server(services)
    security = security_settings(settings)
    manager = ReapingSessionManager(
        app=server,
        security_settings=security,
        max_request_body_size=settings.http.max_body_bytes,
        session_idle_timeout=settings.http.session_idle_timeout_s,
        max_sessions=settings.http.max_sessions,
    )
    sse = SseServerTransport(
        SSE_MESSAGES_PATH, security_settings=security, max_request_body_size=settings.http.max_body_bytes
    )
    sse_streams = StreamCap(SseEndpoint(server, sse), settings.http.max_sessions)

    async def health(_: Request) -> JSONResponse:
        sessions = {"streamable_http": manager.live_sessions, "legacy_sse": sse_streams.live}
        return JSONResponse({"status": "ok", "name": "deepr-mcp", "version": __version__, "sessions": sessions})

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    guard: dict[str, Any] = {"security": security, "max_body_bytes": settings.http.max_body_bytes}
    verifier = token_verifier(settings)

    oauth = oauth_layer(settings)  # OAuth 2.1 resource server: None unless [auth.oauth] is configured
    protection = (
        {"resource_metadata_url": oauth.metadata_url, "required_scopes": oauth.required_scopes} if oauth else {}
    )

    def guarded(app: ASGIApp) -> ASGIApp:
        """Strict Host/Origin first, then a valid bearer token when one is configured."""
        protected = require_auth(app, verifier, **protection)
        return HostOriginGuard(protected, security.allowed_hosts, security.allowed_origins)

    streamable = GetStreamLanes(StreamableHTTPASGIApp(manager), manager.push_stream_of)  # pushes skip the SDK's chain
    return Starlette(
        routes=[
            Route(MCP_PATH, endpoint=guarded(guard_jsonrpc(streamable, **guard, transport="HTTP"))),
            Route(SSE_PATH, endpoint=guarded(sse_streams), methods=["GET"]),
            Mount(
                SSE_MESSAGES_PATH,
                app=guarded(guard_jsonrpc(sse.handle_post_message, **guard, transport="legacy SSE")),
            ),
            Route("/healthz", endpoint=health, methods=["GET"]),
            *(oauth.routes if oauth else []),
        ],
        middleware=auth_middleware(verifier),
        lifespan=lifespan,
    )


def check_bind(settings: Settings) -> None:
    """Refuse to expose the server beyond loopback without a token (a blank one counts as none)."""
    if not is_loopback_host(settings.http.host) and token_verifier(settings) is None:
        raise InvalidInput(
            f"refusing to bind {settings.http.host}: it is not a loopback address and no auth token is set; "
            "pass --auth-token or set DEEPR_AUTH_TOKEN (at least 16 characters; clients then send "
            "'Authorization: Bearer <token>'), or configure [[auth.principals]] or [auth.oauth]"
        )


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise InvalidInput(f"cannot bind {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)
    sock.setblocking(False)
    return sock


async def serve_http(settings: Settings, *, announce: bool = True, with_stdio: bool = False) -> None:
    """Serve until cancelled; prints the real URLs (the port may have been 0) to stderr.

    ``with_stdio`` also serves the process's stdin/stdout from the same services, until stdin
    closes: the client that launched the process and HTTP clients then share one server.
    """
    check_bind(settings)
    sock = bind_socket(settings.http.host, settings.http.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    async with Root(settings) as services:
        app = build_http_app(services)
        config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
        server = uvicorn.Server(config)
        if announce:
            print(
                f"deepr-mcp {__version__}: streamable HTTP at http://{shown}:{port}{MCP_PATH} , "
                f"legacy SSE at http://{shown}:{port}{SSE_PATH}",
                file=sys.stderr,
                flush=True,
            )
        if not with_stdio:
            await server.serve(sockets=[sock])
            return
        from deepr_mcp.transports.stdio import serve_stdio_with

        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: server.serve(sockets=[sock]))
            await serve_stdio_with(services)
            server.should_exit = True
