"""Wiring: the SDK's lowlevel ``Server`` with deepr-mcp's handlers, serving both protocol eras.

Handlers here translate between MCP types and the gateway/use cases and nothing else. Every
handler is a method of a handler class (``ToolHandlers``, ``ResourceHandlers``, ``TaskHandlers``)
built from the ``Surface`` the composition root hands over; the root itself stays out of reach.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from deepr_mcp import __version__
from deepr_mcp.app.connections import connection_id, connection_of, connection_state, is_modern, is_modern_version
from deepr_mcp.app.prompts import PromptHandlers
from deepr_mcp.app.resources import ResourceHandlers
from deepr_mcp.app.surface import Surface
from deepr_mcp.app.task_extension import EXTENSION, ModernTasks, TaskExtension
from deepr_mcp.app.tasks import TaskHandlers
from deepr_mcp.auth.principals import principal_of
from deepr_mcp.dashboard import CampaignApp
from deepr_mcp.elicitation.inline import input_required
from deepr_mcp.gateway.outcome import ToolOutcome
from deepr_mcp.gateway.spec import ToolSpec
from deepr_mcp.tools.context import ToolContext

__all__ = ["INSTRUCTIONS", "build_server"]

if TYPE_CHECKING:
    from deepr_mcp.app.root import Root

INSTRUCTIONS = (
    "deepr-mcp runs long, cited research as background campaigns. Its tools are found on demand: "
    "call tool_search with what you want to do (e.g. 'start a research campaign'), then run the "
    "tool it returns with tool_call(name, arguments). Any tool name from a search can be passed to "
    "tool_call later without searching again."
)

_REVEALED_KEY = "deepr.revealed"

Ctx = ServerRequestContext[Surface, Any]


class DeeprServer(Server[Surface]):
    """Announces ``tools.listChanged`` and tasks (2025-11-25 capability or 2026-07-28 extension) in every era."""

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
        if is_modern_version(protocol_version):  # 2026-07-28: tasks are the SEP-2663 extension
            caps.extensions = {**(caps.extensions or {}), EXTENSION: {}}
        else:  # 2025-11-25 tasks
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
    tool = types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.input_schema,
        execution=execution,
        _meta=spec.meta,
    )
    annotations = spec.annotations.to_mcp() if spec.annotations is not None else None
    if spec.title is not None or annotations or spec.output_schema is not None:
        tool = types.Tool.model_validate(
            {
                **tool.model_dump(by_alias=True, exclude_none=True),
                **({"title": spec.title} if spec.title is not None else {}),
                **({"annotations": annotations} if annotations else {}),
                **({"outputSchema": spec.output_schema} if spec.output_schema is not None else {}),
            },
            by_name=False,
        )
    return tool


def to_call_result(outcome: ToolOutcome) -> types.CallToolResult:
    if outcome.content is not None:  # an upstream's result, passed on as it came
        return types.CallToolResult.model_validate(
            {"content": outcome.content, "structuredContent": outcome.structured, "isError": outcome.is_error},
            by_name=False,
        )
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


class ToolHandlers:
    """``tools/list`` and ``tools/call`` through the gateway, including the task-augmented path."""

    def __init__(self, surface: Surface, tasks: TaskHandlers) -> None:
        self.surface = surface
        self.gateway = surface.gateway
        self.tasks = tasks
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
        return types.ListToolsResult(tools=[to_mcp_tool(self.gateway.as_listed(spec)) for spec in specs])

    async def task_augmented_calls(self, ctx: Ctx, call_next: Any) -> Any:
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
        created = await self.tasks.start(ctx, arguments, typed.task.ttl if typed.task else None)
        return created.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def call_tool(
        self, ctx: Ctx, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        if is_modern(ctx):
            principal = principal_of(ctx)

            async def answerable(campaign_id: str) -> Any:  # only put to a principal that may answer it
                return await self.surface.access.campaign(principal, campaign_id, "approve")

            decide = self.surface.tools.jobs.decide
            question = await input_required(answerable, decide, params, principal=principal.name)
            if question is not None:
                return question
        await self.gateway.ready()
        if params.name == "tool_search":
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


def build_server(root: Root) -> DeeprServer:
    """A server bound to an already-open composition root (the caller's lifespan owns it)."""
    surface = root.surface

    @asynccontextmanager
    async def lifespan(_: Server[Surface]) -> AsyncIterator[Surface]:
        yield surface

    tasks = TaskHandlers(surface)
    tools = ToolHandlers(surface, tasks)
    server = DeeprServer(
        "deepr-mcp",
        version=__version__,
        title="deepr-mcp research server",
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        get_tool_input_schema=surface.gateway.schema_of,
        on_list_tools=tools.list_tools,
        on_call_tool=tools.call_tool,
        **PromptHandlers().server_kwargs(),
        **ResourceHandlers(surface).server_kwargs(),
    )
    for method, (params_type, handler) in tasks.routes().items():
        server.add_request_handler(method, params_type, handler)
    server.middleware.append(tools.task_augmented_calls)
    server.middleware.append(ModernTasks(TaskExtension(surface)))
    return server
