"""stdio transport: what Claude Desktop and most local clients launch.

The SDK's stdio reader turns an unparseable line into an exception that the dispatcher
only logs, so a client that sent garbage would wait forever, and it reads a request whose id
is not a string or integer as a notification. ``GuardedLines`` checks each line with the same
``jsonrpc_guard`` rules as HTTP and hands the SDK a line it must refuse in place of a malformed
one; ``answer_malformed`` answers each refusal with the error naming what was wrong.
"""

from __future__ import annotations

import io
import os
import sys
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress
from io import TextIOWrapper

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import WriteStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from deepr_mcp.app.opening import Opening
from deepr_mcp.app.server import SurfaceSource, build_server
from deepr_mcp.config import Settings
from deepr_mcp.transports.jsonrpc_guard import Problem, problem_of_text

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


class GuardedLines:
    """stdin lines, each malformed one replaced by a blank line (which the SDK refuses) and its problem queued.

    The SDK reader is sequential, so its refusals arrive in the order the problems were queued.
    """

    def __init__(self, lines: AsyncIterable[str], before_end: Callable[[], Awaitable[object]] | None = None) -> None:
        self.lines = lines
        self.problems: deque[Problem] = deque()
        self.before_end = before_end

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self.lines:
            if not line.strip():
                continue
            problem = problem_of_text(line)
            if problem is None:
                yield line
            else:
                self.problems.append(problem)
                yield "\n"
        if self.before_end is not None:  # a client that wrote its requests and closed stdin still gets answers
            await self.before_end()

    def error_for(self, exc: Exception) -> types.JSONRPCError:
        if not self.problems:  # a shape the guard let through but the SDK refused
            return malformed_error(exc)
        problem = self.problems.popleft()
        return types.JSONRPCError(
            jsonrpc="2.0", id=None, error=types.ErrorData(code=problem.code, message=problem.message)
        )


async def answer_malformed(
    source: AsyncIterable[SessionMessage | Exception],
    sink: MemoryObjectSendStream[SessionMessage | Exception],
    write_stream: WriteStream[SessionMessage],
    lines: GuardedLines | None = None,
) -> None:
    """Forward parsed messages to the server; answer malformed ones on the wire."""
    async with sink:
        async for item in source:
            if isinstance(item, Exception):
                error = lines.error_for(item) if lines is not None else malformed_error(item)
                await write_stream.send(SessionMessage(error))
            else:
                await sink.send(item)


@contextmanager
def claimed_stdin() -> Iterator[TextIOWrapper]:
    """The wire's stdin on a private descriptor while fd 0 reads /dev/null (what the SDK's own claim does).

    Handlers and child processes then read EOF instead of stealing protocol bytes; fd 0 is restored on exit.
    """
    try:
        if sys.stdin is None or sys.stdin.fileno() != 0:  # started with fd 0 closed: it may now be the loop's
            raise OSError("no stdin")
        private = os.dup(0)
    except (OSError, ValueError):  # nothing to serve: the reader sees EOF at once
        yield TextIOWrapper(io.BytesIO(), encoding="utf-8")
        return
    with suppress(OSError):
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
    try:
        yield TextIOWrapper(os.fdopen(private, "rb", closefd=False), encoding="utf-8", errors="replace")
    finally:
        # The private descriptor stays open: a worker thread may still block reading it, and a
        # closed number could be recycled under that thread (the SDK's claim keeps it for the same reason).
        os.dup2(private, 0)


async def serve_stdio_with(services: SurfaceSource) -> None:
    """Serve one stdio connection over the services (open, or ``Opening``); returns when stdin closes."""
    server = build_server(services)
    with claimed_stdin() as stdin:
        lines = GuardedLines(anyio.wrap_file(stdin), before_end=services.ready)
        async with stdio_server(stdin=lines) as (read_stream, write_stream), anyio.create_task_group() as tg:  # type: ignore[arg-type]
            sink, filtered = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            tg.start_soon(answer_malformed, read_stream, sink, write_stream, lines)
            await server.run(filtered, write_stream, server.create_initialization_options())
            tg.cancel_scope.cancel()


async def serve_stdio(settings: Settings) -> None:
    """Serve stdio while the services open beside it: ``initialize`` is answered without waiting for them."""
    opening = Opening(settings)
    async with anyio.create_task_group() as tg:
        tg.start_soon(opening.hold)
        try:
            await serve_stdio_with(opening)
        finally:
            opening.release()
