"""Which connected clients may be asked something about a campaign: a budget decision
(elicitation) or a model's answer (sampling).

The connection that started the campaign comes first, then its resource subscribers in a stable
order; each must still be connected, have declared the capability the request needs, and (when
principals are known) be opened by a principal the asker allows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

import mcp_types as types

from deepr_mcp.jobs.models import Campaign


class ClientConnection(Protocol):
    """What asking a client needs of its connection: its declared capabilities and a request channel."""

    def check_capability(self, capability: types.ClientCapabilities) -> bool: ...

    async def send_request(self, request: Any) -> Any: ...


ConnectionLookup = Callable[[str | None], ClientConnection | None]
"""A live connection by id, or ``None`` when it is gone (or the id is ``None``)."""
SubscribersOf = Callable[[str], Iterable[str]]
"""The connection ids subscribed to a resource URI."""
PrincipalOf = Callable[[str], Any]
"""The principal (``auth.Principal``) that opened a connection, or ``None`` if unknown."""


class Audience:
    def __init__(
        self, connection: ConnectionLookup, subscribers_of: SubscribersOf, principal_of: PrincipalOf | None = None
    ) -> None:
        self.connection = connection
        self.subscribers_of = subscribers_of
        self.principal_of = principal_of

    def principal(self, cid: str) -> Any:
        return self.principal_of(cid) if self.principal_of is not None else None

    def candidates(
        self, campaign: Campaign, capability: types.ClientCapabilities, allowed: Callable[[Any], bool]
    ) -> list[str]:
        """Connection ids to ask, in order; ``allowed(principal)`` is only consulted when principals are known."""
        ordered = [campaign.owner_connection, *sorted(self.subscribers_of(campaign.uris()["status"]))]
        out: list[str] = []
        for cid in ordered:
            connection = self.connection(cid)
            if not cid or cid in out or connection is None or not connection.check_capability(capability):
                continue
            if self.principal_of is None or ((principal := self.principal_of(cid)) is not None and allowed(principal)):
                out.append(cid)
        return out


class AsksClients:
    """What puts requests to a campaign's clients holds: its audience and how long one request may wait."""

    def __init__(
        self,
        connection: ConnectionLookup,
        subscribers_of: SubscribersOf,
        *,
        timeout_s: float,
        principal_of: PrincipalOf | None = None,
    ) -> None:
        self.audience = Audience(connection, subscribers_of, principal_of)
        self.timeout_s = timeout_s
