"""Per-connection identity and state, read from the SDK's request context.

The SDK hands lowlevel handlers a per-request ``ServerSession`` that wraps the
connection-scoped ``Connection`` (with ``state`` for scratch data and ``exit_stack`` for
teardown) but exposes it only as a private attribute. This module is the one place that
reaches for it, so an SDK change breaks one function, not every handler. It also decides the
protocol era, once.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import anyio
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from deepr_mcp.auth.principals import LOCAL, Principal

_ID_KEY = "deepr.connection_id"
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""How 2026-07-28 names tasks: the SEP-2663 extension (announced by ``server.py``, served by ``tasks.py``)."""
BROADCAST_TIMEOUT_S = 5.0

logger = logging.getLogger(__name__)


def connection_of(ctx: ServerRequestContext[Any, Any]) -> Connection:
    return ctx.session._connection


def is_modern_version(protocol_version: str | None) -> bool:
    """The one place the protocol era is decided: 2026-07-28 (stateless) or the handshake era.

    ``None`` (capabilities built before any client spoke) counts as the handshake era.
    """
    return protocol_version in MODERN_PROTOCOL_VERSIONS


def is_modern(ctx: ServerRequestContext[Any, Any]) -> bool:
    """2026-07-28 requests are one-shot: nothing persists between them on the server side."""
    return is_modern_version(ctx.protocol_version)


def connection_id(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """A stable id for a handshake-era connection; ``None`` for a one-shot modern request."""
    if is_modern(ctx):
        return None
    state = connection_of(ctx).state
    if _ID_KEY not in state:
        state[_ID_KEY] = uuid.uuid4().hex
    return state[_ID_KEY]


def connection_state(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
    return connection_of(ctx).state


class ConnectionRegistry:
    """Live handshake-era connections by id; each removes itself when its connection closes.

    The elicitation handler gets ``get`` as its "who is connected" port.
    """

    def __init__(self) -> None:
        self._connections: dict[str, Connection] = {}
        self._principals: dict[str, Principal] = {}

    def register(self, connection_id: str, connection: Connection, principal: Principal = LOCAL) -> None:
        """A connection and the principal that opened it (the SDK binds a session to its credential)."""
        if connection_id not in self._connections:
            self._connections[connection_id] = connection
            self._principals[connection_id] = principal
            connection.exit_stack.callback(self._principals.pop, connection_id, None)
            connection.exit_stack.callback(self._connections.pop, connection_id, None)

    def principal_of(self, connection_id: str) -> Principal | None:
        return self._principals.get(connection_id)

    def get(self, connection_id: str | None) -> Connection | None:
        return self._connections.get(connection_id) if connection_id else None

    def __len__(self) -> int:
        return len(self._connections)

    async def broadcast(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send one notification to every live connection; a slow or dead one is skipped, never waited on long."""
        for connection_id, connection in list(self._connections.items()):
            try:
                with anyio.move_on_after(BROADCAST_TIMEOUT_S):
                    await connection.notify(method, params)
            except Exception as exc:  # fan-out boundary: one bad connection must not stop the others
                logger.info("could not send %s to connection %s: %s", method, connection_id, exc)
