"""Writing a prepared ``resources/updated`` onto one handshake-era connection, as cheaply as the SDK allows.

``Connection.send_resource_updated`` builds and validates a new ``JSONRPCNotification`` for every
send, and the transport serialises each one again. The Notifier makes one ``PreparedNotification``
per update (its JSON text made once). Over streamable HTTP with an open GET event stream, its SSE
frame (one ``http.response.body`` message, the same bytes for every subscriber) goes straight to
that stream's ASGI ``send`` through the session's lane (``transports/sse_lane.py``). Otherwise it
is handed, wrapped in a ``SessionMessage``, to the same stream the SDK's ``JSONRPCDispatcher.notify``
writes to, and every transport (stdio, streamable HTTP, legacy SSE) does its own framing and routing
(SSE events, event store, the GET stream, newline-delimited stdout).

The one private read is ``JSONRPCDispatcher._write_stream`` (and ``_closed``), here only: when a
connection's outbound is not a ``JSONRPCDispatcher`` the public ``send_resource_updated`` is used.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.connection import Connection
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.message import SessionMessage
from sse_starlette import ServerSentEvent

from deepr_mcp.transports.sse_lane import lane_of

if TYPE_CHECKING:
    from deepr_mcp.jobs.notifier import Update


def sse_body(update: Update) -> dict[str, Any]:
    """The update's ASGI body message for an SSE stream: the frame the SDK's GET stream would write
    (sse-starlette's own encoding of ``event: message`` and the JSON text), made once per update."""
    if update.frame is None:
        wire = update.message.model_dump_json(by_alias=True, exclude_unset=True)
        frame = ServerSentEvent(data=wire, event="message").encode()
        update.frame = {"type": "http.response.body", "body": frame, "more_body": True}
    return update.frame


def connection_sender(connection: Connection) -> Callable[[Update], Awaitable[None]]:
    """A Notifier ``send`` for ``connection``: writes the update's prepared message to its stream.

    A closed connection raises ``ClosedResourceError`` (the Notifier then drops the subscriber),
    where the SDK's ``notify`` would drop the message silently and leave a ghost subscriber.
    """
    outbound = connection.outbound
    stream = getattr(outbound, "_write_stream", None) if isinstance(outbound, JSONRPCDispatcher) else None
    if stream is None or not hasattr(outbound, "_closed"):

        async def send_through_sdk(update: Update) -> None:
            await connection.send_resource_updated(update.uri, meta=update.meta)

        return send_through_sdk

    async def send(update: Update) -> None:
        if outbound._closed:
            raise anyio.ClosedResourceError
        lane = lane_of(stream)
        if lane is not None and await lane.write(sse_body(update)):
            return
        await stream.send(SessionMessage(message=update.message))

    return send
