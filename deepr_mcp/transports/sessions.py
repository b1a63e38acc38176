"""Bounded HTTP sessions: an idle timeout and a cap on live sessions, on both HTTP transports.

Streamable HTTP: the SDK's ``StreamableHTTPSessionManager`` already closes a session after
``session_idle_timeout`` without a request in flight (an open GET stream counts as one) and can cap
live sessions, but at the cap it refuses every newcomer with 503 while abandoned sessions sit out
their timeout. ``ReapingSessionManager`` closes the session idle longest instead, so clients that
never send DELETE cannot lock others out; only when every session is busy is a newcomer refused.
A closed session's id answers 404 (the client must initialize again) and its connection's
teardown drops its subscriptions, so subscriber counts fall.

Legacy HTTP+SSE: a connection lives exactly as long as its event stream (the SDK ends it when the
client closes the stream; its keep-alive pings find dead peers). An open stream is never idle, so
the cap refuses new streams with 503 rather than cutting an open one.

This module is the one place that reads the SDK manager's private session table
(``_server_instances``, ``_requests_in_flight``, ``_admit_session``, a transport's ``_event_store``
and ``_write_stream``): an SDK change breaks here only.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import ASGIApp, Receive, Scope, Send

logger = logging.getLogger(__name__)


class ReapingSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager; at ``max_sessions`` the oldest idle session makes room."""

    @property
    def live_sessions(self) -> int:
        return len(self._server_instances)

    def push_stream_of(self, session_id: str) -> object | None:
        """The session's outbound write stream (what its dispatcher writes to), for its GET stream's
        lane (``transports/sse_lane.py``); ``None`` for an unknown session or one with an event store
        (whose every message must be stored for replay, which only the SDK's path does)."""
        transport = self._server_instances.get(session_id)
        if transport is None or transport._event_store is not None:
            return None
        return transport._write_stream

    def _admit_session(self, requestor: Any) -> StreamableHTTPServerTransport | None:
        # Called under the manager's session-creation lock, so admissions never race each other.
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            self.reap_oldest_idle()
        return super()._admit_session(requestor)

    def reap_oldest_idle(self) -> str | None:
        """Close the session that has gone longest without a request in flight; its id, or ``None``.

        Sessions serving a request, holding an open GET stream or still being opened are never
        taken. The session is forgotten at once (its id answers 404 from now on); cancelling its
        idle scope ends its server task, which tears the connection down as an idle timeout would.
        """
        oldest: tuple[float, str, StreamableHTTPServerTransport] | None = None
        for session_id, transport in self._server_instances.items():
            scope = transport.idle_scope
            if scope is None or scope.cancel_called or transport._requests_in_flight:
                continue
            # Every session shares one timeout, so the earliest deadline is the longest idle.
            if oldest is None or scope.deadline < oldest[0]:
                oldest = (scope.deadline, session_id, transport)
        if oldest is None:
            return None
        _, session_id, transport = oldest
        self._server_instances.pop(session_id, None)
        self._session_owners.pop(session_id, None)
        assert transport.idle_scope is not None
        transport.idle_scope.cancel()
        logger.info("closed idle session %s to admit a new one (%d sessions is the cap)", session_id, self.max_sessions)
        return session_id


class StreamCap:
    """ASGI wrapper that lets at most ``limit`` requests (legacy SSE streams) run at once.

    One over the cap gets 503 with a JSON-RPC error body naming the setting; the count falls
    when a stream ends, however it ends.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit
        self.live = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.live >= self.limit:
            logger.warning("refusing a legacy SSE connection: %d are open, the most allowed", self.live)
            await _too_many(send, self.live)
            return
        self.live += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.live -= 1


async def _too_many(send: Send, live: int) -> None:
    message = (
        f"too many open connections ({live}, setting http.max_sessions); close one or retry later, "
        "or use streamable HTTP at /mcp"
    )
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body})
