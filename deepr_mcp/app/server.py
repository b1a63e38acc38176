"""Wiring: the SDK's lowlevel ``Server`` with deepr-mcp's handlers, serving both protocol eras.

Handlers here translate between MCP types and the gateway/services and nothing else.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from deepr_mcp import __version__
from deepr_mcp.app.connections import connection_id, connection_of, connection_state, is_modern
from deepr_mcp.app.prompts import get_prompt, list_prompts
from deepr_mcp.app.resources import build_resource_handlers
from deepr_mcp.app.services import Services
from deepr_mcp.app.tasks import build_task_handlers
from deepr_mcp.elicitation.inline import input_required
from deepr_mcp.gateway.outcome import ToolOutcome
from deepr_mcp.gateway.spec import ToolSpec
from deepr_mcp.tools.context import ToolContext

__all__ = ["INSTRUCTIONS", "build_server"]

INSTRUCTIONS = (
    "deepr-mcp runs long, cited research as background campaigns. Its tools are found on demand: "
    "call tool_search with what you want to do (e.g. 'start a research campaign'), then run the "
    "tool it returns with tool_call(name, arguments). Any tool name from a search can be passed to "
    "tool_call later without searching again."
)

_REVEALED_KEY = "deepr.revealed"

Ctx = ServerRequestContext[Services, Any]


class DeeprServer(Server[Services]):
    """Announces ``tools.listChanged`` and tasks to handshake clients, whichever transport built the options."""

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        caps = super().get_capabilities(
            notification_options, experimental_capabilities, extensions, protocol_version=protocol_version
        )
        if protocol_version is None or protocol_version < "2026":  # MCP tasks exist in 2025-11-25 only
            caps.tasks = types.ServerTasksCapability(
                list=types.TasksListCapability(),
                cancel=types.TasksCancelCapability(),
                requests=types.ServerTasksRequestsCapability(
                    tools=types.TasksToolsCapability(call=types.TasksCallCapability())
                ),
            )
        return caps

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


def to_mcp_tool(spec: ToolSpec) -> types.Tool:
    execution = types.ToolExecution(task_support=spec.task_support) if spec.task_support else None  # type: ignore[arg-type]
    return types.Tool(name=spec.name, description=spec.description, input_schema=spec.input_schema, execution=execution)


def to_call_result(outcome: ToolOutcome) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=outcome.text)],
        structured_content=outcome.structured,
        is_error=outcome.is_error,
    )


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


def tool_context(ctx: Ctx) -> ToolContext:
    cid = connection_id(ctx)
    if cid is not None:  # reachable later for elicitation while it stays connected
        ctx.lifespan_context.connections.register(cid, connection_of(ctx))
    return ToolContext(
        services=ctx.lifespan_context,
        protocol_version=ctx.protocol_version,
        connection_id=connection_id(ctx),
        report_progress=ctx.session.report_progress,
        connection_state=connection_state(ctx),
        later_progress=later_progress(ctx),
    )


def build_server(services: Services) -> DeeprServer:
    """A server bound to already-open ``services`` (the caller's lifespan owns them)."""
    gateway = services.gateway

    @asynccontextmanager
    async def lifespan(_: Server[Services]) -> AsyncIterator[Services]:
        yield services

    async def list_tools(ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        revealed = () if is_modern(ctx) else connection_state(ctx).get(_REVEALED_KEY, ())
        return types.ListToolsResult(tools=[to_mcp_tool(spec) for spec in gateway.listed(revealed)])

    async def task_augmented_calls(ctx: Ctx, call_next: Any) -> Any:
        """Serve ``tools/call`` with a ``task`` field (2025-11-25) before the SDK's result sieve.

        The SDK validates a tools/call result as ``CallToolResult``; a task-augmented call must
        answer ``CreateTaskResult``, and a middleware that answers without ``call_next`` owns its
        result, so the task path lives here.
        """
        params = ctx.params or {}
        if ctx.method != "tools/call" or not isinstance(params.get("task"), dict) or is_modern(ctx):
            return await call_next(ctx)
        typed = types.CallToolRequestParams.model_validate(params, by_name=False)
        target, arguments = typed.name, typed.arguments or {}
        if target == "tool_call":
            target, arguments = arguments.get("name"), arguments.get("arguments") or {}
        if target != "campaign_start":
            raise MCPError(
                code=INVALID_PARAMS, message=f"only campaign_start supports task-augmented calls, not {target!r}"
            )
        created = await start_task(ctx, arguments, typed.task.ttl if typed.task else None)
        return created.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def call_tool(
        ctx: Ctx, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        if is_modern(ctx) and (question := await input_required(services, params)) is not None:
            return question
        if params.name == "tool_search":
            outcome, found = gateway.search(params.arguments)
            await _reveal(ctx, found)
        elif params.name == "tool_call":
            target = gateway.unwrap_call(params.arguments)
            outcome = target if isinstance(target, ToolOutcome) else await gateway.invoke(tool_context(ctx), *target)
        else:
            outcome = await gateway.invoke(tool_context(ctx), params.name, params.arguments)
        return to_call_result(outcome)

    async def _reveal(ctx: Ctx, names: list[str]) -> None:
        """Add hits to this connection's list; tell the client only if the list really changed."""
        if not names or is_modern(ctx) or gateway.mode == "full":
            return
        revealed: set[str] = connection_state(ctx).setdefault(_REVEALED_KEY, set())
        new = set(names) - revealed
        if new:
            revealed |= new
            # Request-scoped: it rides this call's own response stream, so it cannot be lost
            # the way a standalone-stream notification is before the client's GET stream attaches.
            await ctx.session.send_notification(types.ToolListChangedNotification(), related_request_id=ctx.request_id)

    task_handlers = build_task_handlers(services)
    start_task = task_handlers.pop("start")[1]

    server = DeeprServer(
        "deepr-mcp",
        version=__version__,
        title="deepr-mcp research server",
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        get_tool_input_schema=gateway.schema_of,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        **build_resource_handlers(services),
    )
    for method, (params_type, handler) in task_handlers.items():
        server.add_request_handler(method, params_type, handler)
    server.middleware.append(task_augmented_calls)
    return server
