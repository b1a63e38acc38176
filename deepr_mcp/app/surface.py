"""What the MCP handlers are given: the composition root builds it, the handlers never see the root."""

from __future__ import annotations

from dataclasses import dataclass

from mcp.server.subscriptions import SubscriptionBus

from deepr_mcp.app.connections import ConnectionRegistry
from deepr_mcp.auth.access import Access
from deepr_mcp.gateway.gateway import Gateway
from deepr_mcp.jobs.campaigns import Spawn
from deepr_mcp.jobs.notifier import Notifier
from deepr_mcp.tools.context import ToolServices


@dataclass(frozen=True, slots=True)
class Surface:
    """Tool services, the gateway, subscriptions (bus and notifier) and the live connections."""

    tools: ToolServices
    gateway: Gateway
    bus: SubscriptionBus
    notifier: Notifier
    connections: ConnectionRegistry
    spawn: Spawn
    access: Access
    request_state_key: str | None = None
    """Seals 2026-07-28 ``requestState`` (``app/request_state.py``); ``None``: a key for this process."""
