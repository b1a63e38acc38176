"""Writing a prepared ``resources/updated`` onto one handshake-era connection, as cheaply as the SDK allows.

``Connection.send_resource_updated`` builds and validates a new ``JSONRPCNotification`` for every
send, and the transport serialises each one again. Here each Notifier ``Update`` gets one
``PreparedNotification`` (its JSON text made once), kept on the update for every subscriber; the
Notifier itself knows no wire types. Over streamable HTTP with an open GET event stream, its SSE
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
from mcp_types import JSONRPCNotification
from pydantic import PrivateAttr
from sse_starlette import ServerSentEvent

from deepr_mcp.transports.sse_lane import lane_of

if TYPE_CHECKING:
    from deepr_mcp.jobs.notifier import Update

UPDATED = "notifications/resources/updated"
WIRE_DUMP = {"by_alias": True, "exclude_unset": True}
"""How every SDK transport serialises an outgoing message (stdio, streamable HTTP, legacy SSE)."""


class PreparedNotification(JSONRPCNotification):
    """A JSON-RPC notification whose wire text is made once and then reused for every subscriber.

    The SDK transports frame ``message.model_dump_json(by_alias=True, exclude_unset=True)``; for
    exactly that call this returns the stored text (made by that same call at construction), so
    the framing stays the SDK's and only the per-subscriber serialisation goes.
    """

    _wire: str = PrivateAttr(default="")

    @classmethod
    def build(cls, method: str, params: dict[str, Any]) -> PreparedNotification:
        message = cls(jsonrpc="2.0", method=method, params=params)
        message._wire = JSONRPCNotification.model_dump_json(message, **WIRE_DUMP)
        return message

    def model_dump_json(self, **kwargs: Any) -> str:  # type: ignore[override]
        if kwargs == WIRE_DUMP and self._wire:
            return self._wire
        return super().model_dump_json(**kwargs)


def prepared(update: Update) -> PreparedNotification:
    """The update's ``notifications/resources/updated``, built and serialised on first use only."""
    if update.message is None:
        update.message = PreparedNotification.build(UPDATED, {"uri": update.uri, "_meta": update.meta})
    return update.message


def sse_body(update: Update) -> dict[str, Any]:
    """The update's ASGI body message for an SSE stream: the frame the SDK's GET stream would write
    (sse-starlette's own encoding of ``event: message`` and the JSON text), made once per update."""
    if update.frame is None:
        wire = prepared(update).model_dump_json(by_alias=True, exclude_unset=True)
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
        await stream.send(SessionMessage(message=prepared(update)))

    return send
