"""What a tool handler can reach: the few services it uses and this one request's channel.

Handlers get this instead of MCP types or the composition root, so they stay thin (validate →
call one use case → return) and testable with fakes; the composition root builds the services
once and the wiring layer adds the request's channel.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from deepr_mcp.auth.principals import LOCAL, Principal
from deepr_mcp.config import Settings
from deepr_mcp.experts.store import ExpertStore
from deepr_mcp.gateway.registry import ToolRegistry
from deepr_mcp.jobs.campaigns import Campaigns
from deepr_mcp.jobs.engines import Engines, WebAccess
from deepr_mcp.jobs.feed import CampaignFeed
from deepr_mcp.jobs.manager import JobManager
from deepr_mcp.jobs.store import CampaignStore
from deepr_mcp.objects import Objects
from deepr_mcp.replication.sync import LocalSync, ReplicaSync
from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.sandbox import SandboxManager

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


async def _no_progress(progress: float, total: float | None = None, message: str | None = None) -> None:
    return None


@dataclass(frozen=True, slots=True)
class ToolServices:
    """The services tools use, and nothing that opens or closes them."""

    settings: Settings
    registry: ToolRegistry
    campaigns: Campaigns
    jobs: JobManager
    store: CampaignStore
    feed: CampaignFeed
    experts: ExpertStore
    corpus: Corpus
    sandboxes: SandboxManager
    engines: Engines
    web: WebAccess
    objects: Objects | None = None
    """Big results kept server-side (``object_get``/``object_slice``); set by the root."""
    corpus_sync: ReplicaSync = field(default_factory=LocalSync)
    """When the corpus's changes are in the replicas' shared log (at once in one process)."""


@dataclass(slots=True)
class ToolContext:
    services: ToolServices
    protocol_version: str = ""
    connection_id: str | None = None
    """Stable id of the client connection (handshake era); ``None`` for one-shot 2026-07-28 requests."""
    report_progress: ProgressFn = _no_progress
    """Sends ``notifications/progress`` when the caller gave a ``progressToken``; otherwise a no-op."""
    connection_state: dict[str, Any] = field(default_factory=dict)
    """Scratch state that lives as long as the connection (empty and short-lived on 2026-07-28)."""
    remote: bool = False
    """The call came over HTTP (anyone who can reach the port), not stdio or in-process (the user who
    launched the server); tools that read the server's files are stricter for remote callers."""
    principal: Principal = LOCAL
    """Who is calling (stdio and token-less loopback HTTP: the local principal with every scope)."""
    later_progress: ProgressFn | None = None
    """Progress for the caller's ``progressToken`` that may outlive this request (a background
    campaign reporting to the connection that started it); ``None`` without a token or connection."""
