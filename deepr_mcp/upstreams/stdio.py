"""The SDK's stdio client transport with a line reader that stays linear and bounded.

The SDK's reader joins its buffer to every chunk (``(buffer + chunk).split("\\n")``), which is
quadratic in a line's length: a 100 MB result took two minutes of event-loop time here, during
which every other client and upstream waited. This reader keeps chunks in a list, looks for the
newline only in the new chunk, and stops holding a line once it passes ``max_line`` characters:
the rest of that line is read and dropped, and the request it answered gets a JSON-RPC error
saying so (its id is read from the line's first or last characters). Process start, shutdown
(the spec's close-stdin, wait, terminate sequence) and parsing are the SDK's own functions.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import TextIO

import anyio
import anyio.lowlevel
import mcp_types as types
from anyio.streams.text import TextReceiveStream
from mcp.client._transport import TransportStreams
from mcp.client.stdio import (
    StdioServerParameters,
    _aclose_all,
    _create_platform_compatible_process,
    _drain_stdout,
    _get_executable_command,
    _stop_server_process,
    get_default_environment,
)
from mcp.shared.message import SessionMessage

from deepr_mcp.upstreams.noise import NoiseLog

__all__ = ["OVERSIZED", "bounded_stdio_client"]

OVERSIZED = -32003
"""The error code a request gets when its answer was too long to read (the SDK's range, -32000..-32099)."""
_ID = re.compile(r'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")')
_KEEP = 512


def request_id(head: str, tail: str) -> int | str | None:
    """The JSON-RPC id of a message seen only by its first and last characters (key order varies)."""
    for text in (head, tail):
        found = _ID.findall(text)
        if found:
            raw = found[0] if text is head else found[-1]
            return int(raw) if not raw.startswith('"') else raw[1:-1]
    return None


@asynccontextmanager
async def bounded_stdio_client(
    server: StdioServerParameters, errlog: TextIO, max_line: int, name: str = "stdio"
) -> AsyncGenerator[TransportStreams, None]:
    """``mcp.client.stdio.stdio_client`` with a linear reader and a ``max_line`` cap on one message;
    lines that are not JSON-RPC are dropped and counted (``NoiseLog``), not passed on one by one."""
    command = await _get_executable_command(server.command)
    process = await _create_platform_compatible_process(
        command=command,
        args=server.args,
        env=get_default_environment() | (server.env or {}),
        errlog=errlog,
        cwd=server.cwd,
    )
    read_stream_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_stream_reader = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()
    noise = NoiseLog(name)

    async def deliver(line: str) -> None:
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError:
            noise.note(line)
            return
        await read_stream_writer.send(SessionMessage(message))

    async def refuse(head: str, tail: str, size: int) -> None:
        rid = request_id(head, tail)
        if rid is None:
            return  # nothing to answer: the caller's own timeout reports it
        message = f"the upstream's answer was over {max_line:,} characters ({size:,} read); deepr dropped it unread"
        error = types.JSONRPCError(jsonrpc="2.0", id=rid, error=types.ErrorData(code=OVERSIZED, message=message))
        await read_stream_writer.send(SessionMessage(error))

    async def stdout_reader() -> None:
        assert process.stdout is not None
        stdout = TextReceiveStream(process.stdout, encoding=server.encoding, errors="replace")
        pieces: list[str] = []
        held = 0
        head: str | None = None  # set while dropping an oversized line
        tail = ""
        try:
            async with read_stream_writer:
                try:
                    async for chunk in stdout:
                        start = 0
                        while (end := chunk.find("\n", start)) >= 0:
                            part, start = chunk[start:end], end + 1
                            if head is not None:
                                await refuse(head, (tail + part)[-_KEEP:], held + len(part))
                                head, tail, pieces, held = None, "", [], 0
                                continue
                            line = "".join([*pieces, part]) if pieces else part
                            pieces, held = [], 0
                            if len(line) > max_line:
                                await refuse(line[:_KEEP], line[-_KEEP:], len(line))
                            elif line.strip():
                                await deliver(line)
                        rest = chunk[start:]
                        if not rest:
                            continue
                        if head is not None:
                            tail, held = (tail + rest)[-_KEEP:], held + len(rest)
                            continue
                        pieces.append(rest)
                        held += len(rest)
                        if held > max_line:
                            joined = "".join(pieces)
                            head, tail, pieces = joined[:_KEEP], joined[-_KEEP:], []
                finally:
                    noise.close()
                    await _drain_stdout(process)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError):
            pass  # shutdown, or the session is gone: it sees the read stream close

    async def stdin_writer() -> None:
        assert process.stdin is not None
        try:
            async with write_stream_reader:
                async for session_message in write_stream_reader:
                    text = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((text + "\n").encode(server.encoding, errors="replace"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_stream_writer.aclose()
        finally:
            writer_done.set()

    async def shutdown() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(0.5):
            await writer_done.wait()
        await _stop_server_process(process)
        await _aclose_all(read_stream, write_stream, read_stream_writer, write_stream_reader)
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdout_reader)
        tg.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await shutdown()
            tg.cancel_scope.cancel()
