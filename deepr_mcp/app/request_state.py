"""``requestState`` sealed at the wire: the SDK's ``RequestStateBoundary`` (AES-256-GCM, expiry,
request and principal binding) around every 2026-07-28 ``input_required`` round.

The plain state (``question#attempt#tag``) was readable and editable by the client: a tampered
state was taken as a fresh round and a forged attempt number honoured. Sealed, any edit answers
-32602 "Invalid or expired requestState" and handlers only ever see state this server minted.

The key: ``store.request_state_key`` (``DEEPR_STORE_REQUEST_STATE_KEY``) when set; else, with
``store.url``, one key generated once and kept in Redis so every replica opens what another sealed
(a retry may land anywhere); else a key generated for this process (a restart forgets it, which
only means a client's pending round is asked again).
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity

if TYPE_CHECKING:
    import redis.asyncio as aioredis

__all__ = ["AUDIENCE", "SHARED_KEY", "sealing", "shared_key"]

AUDIENCE = "deepr-mcp"
"""The audience claim: state minted by another service sharing the key is refused."""

SHARED_KEY = "deepr:request_state_key"
TTL_S = 3600.0
"""A round stays answerable for an hour: a human may take a while over a budget question."""


def sealing(key: str | None) -> RequestStateBoundary:
    """The server middleware that seals outgoing and verifies incoming ``requestState``."""
    security = RequestStateSecurity.ephemeral(ttl=TTL_S) if key is None else RequestStateSecurity(keys=[key], ttl=TTL_S)
    return RequestStateBoundary(security, default_audience=AUDIENCE)


async def shared_key(client: aioredis.Redis) -> str:
    """The replicas' common key: the first replica to ask generates it, every other reads that one."""
    await client.set(SHARED_KEY, secrets.token_hex(32), nx=True)
    value = await client.get(SHARED_KEY)
    return value.decode() if isinstance(value, bytes) else str(value)
