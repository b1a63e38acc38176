"""stdio transport: what Claude Desktop and most local clients launch.

The SDK's stdio reader turns an unparseable line into an exception that the dispatcher
only logs, so a client that sent garbage would wait forever. ``answer_malformed`` sits
between the two and answers such lines with the JSON-RPC error the spec prescribes.
"""

from __future__ import annotations

from collections.abc import AsyncIterable

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import WriteStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def malformed_error(exc: Exception) -> types.JSONRPCError:
    """-32700 for text that is not JSON, -32600 for JSON that is not a JSON-RPC 2.0 message."""
    not_json = isinstance(exc, ValidationError) and any(e["type"] == "json_invalid" for e in exc.errors())
    if not_json:
        error = types.ErrorData(code=PARSE_ERROR, message="Parse error: the line is not valid JSON")
    else:
        error = types.ErrorData(
            code=INVALID_REQUEST,
            message="Invalid Request: expected one JSON-RPC 2.0 object with jsonrpc '2.0', "
            "an id (requests) and a method, or a result/error (responses)",
        )
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=error)


async def answer_malformed(
    source: AsyncIterable[SessionMessage | Exception],
    sink: MemoryObjectSendStream[SessionMessage | Exception],
    write_stream: WriteStream[SessionMessage],
) -> None:
    """Forward parsed messages to the server; answer malformed ones on the wire."""
    async with sink:
        async for item in source:
            if isinstance(item, Exception):
                await write_stream.send(SessionMessage(malformed_error(item)))
            else:
                await sink.send(item)


async def serve_stdio_with(services: Root) -> None:
    """Serve one stdio connection over already-open services; returns when stdin closes."""
    server = build_server(services)
    async with stdio_server() as (read_stream, write_stream), anyio.create_task_group() as tg:
        sink, filtered = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        tg.start_soon(answer_malformed, read_stream, sink, write_stream)
        await server.run(filtered, write_stream, server.create_initialization_options())
        tg.cancel_scope.cancel()


async def serve_stdio(settings: Settings) -> None:
    async with Root(settings) as services:
        await serve_stdio_with(services)
