"""What a tool handler can reach: the process's services and this one request's channel.

Handlers get this instead of MCP types, so they stay thin (validate → call one service →
return) and testable; the wiring layer builds it from the SDK's request context.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deepr_mcp.app.services import Services

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


async def _no_progress(progress: float, total: float | None = None, message: str | None = None) -> None:
    return None


@dataclass(slots=True)
class ToolContext:
    services: Services
    protocol_version: str = ""
    connection_id: str | None = None
    """Stable id of the client connection (handshake era); ``None`` for one-shot 2026-07-28 requests."""
    report_progress: ProgressFn = _no_progress
    """Sends ``notifications/progress`` when the caller gave a ``progressToken``; otherwise a no-op."""
    connection_state: dict[str, Any] = field(default_factory=dict)
    """Scratch state that lives as long as the connection (empty and short-lived on 2026-07-28)."""
    later_progress: ProgressFn | None = None
    """Progress for the caller's ``progressToken`` that may outlive this request (a background
    campaign reporting to the connection that started it); ``None`` without a token or connection."""
