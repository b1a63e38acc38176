"""A direct lane for pushed ``resources/updated`` onto a handshake-era GET event stream.

Profiled at 1,000 subscribers, a notification written through the SDK's path cost ~250 µs of
server CPU: dispatcher stream -> ``message_router`` task -> the GET stream's request stream ->
``standalone_sse_writer`` task -> a zero-buffer stream -> sse-starlette's ``_stream_response`` task
(an SSE encode and a cancel scope per event) -> ASGI ``send``: three task switches, four stream
hand-offs. A pushed update needs none of that: its SSE frame is the same bytes for every
subscriber, so the Notifier's writer hands that one prepared ``http.response.body`` message to
the stream's ASGI ``send`` itself, on the same socket the SDK's stream writes to.

The SDK still serves the GET request whole: it validates it (Accept, session, owner, 409 for a
second stream), writes the response start, the pings, every message that is not a pushed update
(server requests, other notifications), and ends the response when the session ends. ``GetStreamLanes``
only watches that response: a 200 ``text/event-stream`` opens the session's lane, the final body
message (or the request ending, e.g. the client disconnected) closes it, and from then on pushes
take the SDK path again (which drops them, as before, until a new GET stream attaches). No lane is
opened when the transport has an event store: then every message must get an event id and be
stored for replay, which only the SDK path does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["GetStreamLanes", "Lane", "lane_of", "open_lanes"]

_SESSION_HEADER = b"mcp-session-id"
_SSE = b"text/event-stream"

_lanes: dict[object, Lane] = {}
"""Open lanes, keyed by the session transport's outbound write stream (the one the dispatcher writes)."""


class Lane:
    """The ASGI ``send`` of one open GET event stream, for pushed frames."""

    __slots__ = ("closed", "send")

    def __init__(self, send: Send) -> None:
        self.send = send
        self.closed = False

    async def write(self, message: Message) -> bool:
        """Write one prepared SSE body message; ``False`` when the stream has ended (take the SDK path).

        A client that stops reading blocks here once the socket's buffers are full (uvicorn waits
        for the socket to drain), as it did in the SDK's path: the Notifier's watchdog handles that.
        A client that disconnected is not an error: the server discards the bytes, and the SDK's
        stream ends when it notices, which closes the lane.
        """
        if self.closed:
            return False
        try:
            await self.send(message)
        except RuntimeError:  # the response ended while this write waited for the client to drain
            if self.closed:
                return False
            raise
        return True


def lane_of(stream: object) -> Lane | None:
    """The open lane of the session whose outbound write stream is ``stream``, if any."""
    lane = _lanes.get(stream)
    return lane if lane is not None and not lane.closed else None


def open_lanes() -> int:
    """How many GET event streams have an open lane now (in this process)."""
    return len(_lanes)


class GetStreamLanes:
    """ASGI wrapper around the streamable HTTP app: opens a session's lane while its GET stream is served.

    ``stream_of(session_id)`` is the session's outbound write stream, or ``None`` when the session
    is unknown or must not get a lane (an event store is configured).
    """

    def __init__(self, app: ASGIApp, stream_of: Callable[[str], object | None]) -> None:
        self.app = app
        self.stream_of = stream_of

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = self._stream_key(scope)
        if key is None:
            await self.app(scope, receive, send)
            return
        lane = Lane(send)

        async def watched(message: Message) -> None:
            kind = message["type"]
            if kind == "http.response.start":
                if message.get("status") == 200 and _is_event_stream(message):
                    _lanes[key] = lane
            elif kind == "http.response.body" and not message.get("more_body", False):
                _close(key, lane)  # before the last message: no push may follow it
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            _close(key, lane)

    def _stream_key(self, scope: Scope) -> object | None:
        if scope["type"] != "http" or scope["method"] != "GET":
            return None
        session_id = next((v for k, v in scope["headers"] if k == _SESSION_HEADER), None)
        if session_id is None:
            return None
        return self.stream_of(session_id.decode("latin-1"))


def _is_event_stream(message: Message) -> bool:
    headers: Any = message.get("headers", ())
    return any(k.lower() == b"content-type" and v.split(b";")[0].strip().lower() == _SSE for k, v in headers)


def _close(key: object, lane: Lane) -> None:
    lane.closed = True
    if _lanes.get(key) is lane:
        del _lanes[key]
