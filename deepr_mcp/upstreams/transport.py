"""The SDK transport for one upstream: stdio subprocess, streamable HTTP or legacy SSE.

Only the SDK speaks the protocol; this module picks its transport and feeds it the settings.
A stdio upstream's stderr goes to a log file under the data dir, so a server that dies at
start-up can be explained by its own last words.
"""

from __future__ import annotations

import sys
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import httpx2
from mcp.client._transport import TransportStreams
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

from deepr_mcp.upstreams.http_limit import LimitedTransport
from deepr_mcp.upstreams.settings import UpstreamSettings
from deepr_mcp.upstreams.stdio import bounded_stdio_client

__all__ = ["StderrLog", "open_transport"]

STDERR_KEEP_BYTES = 256 * 1024


class StderrLog:
    """``<dir>/<name>.stderr.log``: appended to by the subprocess, tail read for error messages."""

    def __init__(self, directory: Path | None, name: str) -> None:
        self.path = directory / f"{name}.stderr.log" if directory is not None else None

    def open(self) -> TextIO | None:
        if self.path is None:
            return None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size > STDERR_KEEP_BYTES:
            self.path.write_bytes(self.path.read_bytes()[-STDERR_KEEP_BYTES // 2 :])
        return self.path.open("a", encoding="utf-8", errors="replace")

    def offset(self) -> int:
        return self.path.stat().st_size if self.path is not None and self.path.exists() else 0

    def tail_since(self, offset: int, limit: int = 300) -> str:
        """The last line(s) written since ``offset``, at most ``limit`` characters, on one line."""
        if self.path is None or not self.path.exists():
            return ""
        with self.path.open("rb") as fh:
            fh.seek(offset)
            text = fh.read()[-4096:].decode("utf-8", errors="replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return " | ".join(lines[-3:])[-limit:]


@asynccontextmanager
async def open_transport(settings: UpstreamSettings, errlog: TextIO | None, kind: str | None = None) -> Any:
    """Enter the SDK transport for ``settings`` (``kind`` overrides its transport); yields its streams."""
    async with AsyncExitStack() as stack:
        streams: TransportStreams
        max_message = 2 * settings.max_result_bytes + 1024 * 1024  # JSON escaping can double a text's length
        if settings.command is not None:
            params = StdioServerParameters(
                command=settings.command, args=settings.args, env=settings.env or None, cwd=settings.cwd
            )
            if errlog is not None:
                stack.callback(errlog.close)
            streams = await stack.enter_async_context(
                bounded_stdio_client(params, errlog or sys.stderr, max_message, settings.name)
            )
        else:
            headers = {k: v.get_secret_value() for k, v in settings.headers.items()}
            url = settings.url or ""

            def limited_client(
                headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: Any = None
            ) -> httpx2.AsyncClient:
                """``create_mcp_http_client``'s client, reading every answer through ``LimitedTransport``."""
                if timeout is None:
                    timeout = httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT)
                return httpx2.AsyncClient(
                    headers=headers, timeout=timeout, auth=auth, transport=LimitedTransport(max_message)
                )

            if (kind or settings.kind) == "sse":
                streams = await stack.enter_async_context(
                    sse_client(url, headers=headers, timeout=settings.timeout_s, httpx_client_factory=limited_client)
                )
            else:
                timeout = httpx2.Timeout(settings.timeout_s, read=max(300.0, settings.timeout_s))
                http = await stack.enter_async_context(limited_client(headers=headers, timeout=timeout))
                streams = await stack.enter_async_context(
                    streamable_http_client(url, http_client=http, max_sse_event_size=max_message)
                )
        yield streams
