"""The MCP handlers over an open ``Surface``: tools (through the gateway), resources and tasks.

Handlers translate between MCP types and the gateway/use cases and nothing else. ``Handlers``
assembles them once the composition root is open; ``server.py`` routes the SDK to them, so the
server answers ``initialize`` before this module (and the tool catalogue behind it) is imported.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from deepr_mcp.app.connections import connection_id, connection_of, connection_state, is_modern
from deepr_mcp.app.request_state import sealing
from deepr_mcp.app.resources import ResourceHandlers
from deepr_mcp.app.surface import Surface
from deepr_mcp.app.tasks import Tasks
from deepr_mcp.app.wire import to_call_result, to_mcp_tool
from deepr_mcp.auth.principals import principal_of
from deepr_mcp.dashboard import CampaignApp
from deepr_mcp.elicitation.inline import can_answer, input_required
from deepr_mcp.gateway.outcome import ToolOutcome
from deepr_mcp.tools.context import ToolContext

__all__ = ["TOOLS_PAGE", "Handlers", "ToolHandlers"]

_REVEALED_KEY = "deepr.revealed"

Ctx = ServerRequestContext[Surface, Any]


def later_progress(ctx: Ctx) -> Any:
    """A sender of ``notifications/progress`` for the request's token on the connection's own stream.

    Best effort: the SDK drops it silently once the connection is gone.
    """
    meta = ctx.meta or {}
    token = meta.get("progress_token", meta.get("progressToken")) if not is_modern(ctx) else None
    if token is None:
        return None
    connection = connection_of(ctx)

    async def send(progress: float, total: float | None = None, message: str | None = None) -> None:
        params: dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await connection.notify("notifications/progress", params)

    return send


TOOLS_PAGE = 500
"""Tools per ``tools/list`` page: a federated catalogue of 20,000 tools was one 2.8 MiB answer."""


def _page_start(cursor: str | None, total: int) -> int:
    """The offset a ``tools/list`` cursor names (ours are offsets as text); anything else is -32602."""
    if cursor is None:
        return 0
    if not cursor.isdigit() or int(cursor) > total:
        message = f"invalid cursor {cursor[:40]!r}: pass the nextCursor a page returned"
        raise MCPError(code=INVALID_PARAMS, message=message)
    return int(cursor)


class ToolHandlers:
    """``tools/list`` and ``tools/call`` through the gateway, including the task-augmented path."""

    def __init__(self, surface: Surface) -> None:
        self.surface = surface
        self.gateway = surface.gateway
        self.apps = CampaignApp(surface.gateway, surface.tools.settings.apps.enabled)

    def tool_context(self, ctx: Ctx) -> ToolContext:
        cid = connection_id(ctx)
        principal = principal_of(ctx)
        if cid is not None:  # reachable later for elicitation while it stays connected
            self.surface.connections.register(cid, connection_of(ctx), principal)
        return ToolContext(
            services=self.surface.tools,
            protocol_version=ctx.protocol_version,
            connection_id=cid,
            report_progress=ctx.session.report_progress,
            connection_state=connection_state(ctx),
            later_progress=later_progress(ctx),
            remote=ctx.request is not None,  # HTTP transports attach the request; stdio and in-process do not
            principal=principal,
        )

    async def list_tools(self, ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        if self.gateway.mode == "full":
            await self.gateway.ready()
        revealed = () if is_modern(ctx) else connection_state(ctx).get(_REVEALED_KEY, ())
        specs = self.gateway.listed(revealed)
        specs += self.apps.tools(ctx.session.client_capabilities, (spec.name for spec in specs))  # MCP Apps
        start = _page_start(params.cursor if params is not None else None, len(specs))
        page = specs[start : start + TOOLS_PAGE]
        more = start + TOOLS_PAGE < len(specs)
        return types.ListToolsResult(
            tools=[to_mcp_tool(self.gateway.as_listed(spec)) for spec in page],
            next_cursor=str(start + TOOLS_PAGE) if more else None,
        )

    async def call_tool(
        self, ctx: Ctx, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        if is_modern(ctx) and can_answer(ctx.session.client_capabilities):  # else budget_decide or the timeout
            principal = principal_of(ctx)

            async def answerable(campaign_id: str) -> Any:  # only put to a principal that may answer it
                return await self.surface.access.campaign(principal, campaign_id, "approve")

            decide = self.surface.tools.jobs.decide
            question = await input_required(answerable, decide, params, principal=principal.name)
            if question is not None:
                return question
        await self.gateway.ready()
        if params.name == "tool_search":
            if self.gateway.search_needs_model(params.arguments):  # ~4 CPU-ms: keep the loop serving others
                outcome, found = await anyio.to_thread.run_sync(self.gateway.search, params.arguments)
            else:  # words only, or the query's vector cached: a thread hop would cost more than the search
                outcome, found = self.gateway.search(params.arguments)
            await self._reveal(ctx, found)
        elif self.apps.handles(params.name):
            outcome = await self.apps.research(self.tool_context(ctx), params.arguments)
        elif params.name == "tool_call":
            target = self.gateway.unwrap_call(params.arguments)
            if isinstance(target, ToolOutcome):
                outcome = target
            else:
                outcome = await self.gateway.invoke(self.tool_context(ctx), *target)
        else:
            outcome = await self.gateway.invoke(self.tool_context(ctx), params.name, params.arguments)
        return to_call_result(outcome)

    async def _reveal(self, ctx: Ctx, names: list[str]) -> None:
        """Add hits to this connection's list; tell the client only if the list really changed."""
        if not names or is_modern(ctx) or self.gateway.mode == "full":
            return
        revealed: set[str] = connection_state(ctx).setdefault(_REVEALED_KEY, set())
        new = set(names) - revealed
        if new:
            revealed |= new
            # Request-scoped: it rides this call's own response stream, so it cannot be lost
            # the way a standalone-stream notification is before the client's GET stream attaches.
            await ctx.session.send_notification(types.ToolListChangedNotification(), related_request_id=ctx.request_id)


class Handlers:
    """Every surface-bound handler of one server, built once the composition root is open."""

    def __init__(self, surface: Surface) -> None:
        self.surface = surface
        self.sealing = sealing(surface.request_state_key)  # requestState: handlers only see what we minted
        self.tools = ToolHandlers(surface)
        self.tasks = Tasks(surface, self.tools.tool_context)
        self.task_routes = self.tasks.routes()
        self.resources: dict[str, Any] = ResourceHandlers(surface).server_kwargs()
