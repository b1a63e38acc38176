"""Wiring: the SDK's lowlevel ``Server`` routed to deepr-mcp's handlers, serving both protocol eras.

The server is built before the composition root is open: ``initialize`` (and ``ping``) are answered
by the SDK from what this module knows (name, instructions, capabilities), and every other request
first awaits the root's ``Surface``, then goes to the handlers of ``handlers.py`` (tools, resources,
and ``Tasks``, the one task adapter, kept as server middleware). So stdio answers ``initialize``
while the stores, the tool catalogue and the HTTP sessions are still opening, and this module
imports nothing of them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Protocol

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp_types.methods import INPUT_REQUIRED_METHODS

from deepr_mcp import __version__
from deepr_mcp.app.connections import TASKS_EXTENSION, is_modern_version
from deepr_mcp.app.prompts import PromptHandlers

if TYPE_CHECKING:
    from deepr_mcp.app.handlers import Handlers
    from deepr_mcp.app.root import Root
    from deepr_mcp.app.surface import Surface

__all__ = ["INSTRUCTIONS", "DeeprServer", "SurfaceSource", "build_server"]

INSTRUCTIONS = (
    "deepr-mcp runs long, cited research as background campaigns. Its tools are found on demand: "
    "call tool_search with what you want to do (e.g. 'start a research campaign'), then run the "
    "tool it returns with tool_call(name, arguments). Any tool name from a search can be passed to "
    "tool_call later without searching again."
)

# The 2025-11-25 ``tasks/*`` requests and their params types; ``Tasks.routes`` serves them.
TASK_PARAMS: dict[str, type] = {
    "tasks/get": types.GetTaskRequestParams,
    "tasks/result": types.GetTaskPayloadRequestParams,
    "tasks/cancel": types.CancelTaskRequestParams,
    "tasks/list": types.PaginatedRequestParams,
}
# The ``on_*`` hooks ``ResourceHandlers.server_kwargs`` fills.
RESOURCE_HOOKS = (
    "on_list_resources",
    "on_list_resource_templates",
    "on_read_resource",
    "on_subscribe_resource",
    "on_unsubscribe_resource",
    "on_subscriptions_listen",
)

Ctx = ServerRequestContext[Any, Any]
Middleware = Callable[[Ctx, Any], Awaitable[Any]]


class SurfaceSource(Protocol):
    """What the server is built over: the composition root's ``Surface``, awaited until it is open."""

    async def ready(self) -> Surface: ...


class DeeprServer(Server[Any]):
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
            caps.extensions = {**(caps.extensions or {}), TASKS_EXTENSION: {}}
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


class DeferredHandlers:
    """The handlers, built on first use from the surface once its source is open."""

    def __init__(self, source: SurfaceSource) -> None:
        self.source = source
        self.built: Handlers | None = None

    async def get(self) -> Handlers:
        if self.built is None:
            self.build(await self.source.ready())
        assert self.built is not None
        return self.built

    def build(self, surface: Surface) -> None:
        from deepr_mcp.app.handlers import Handlers  # the tool catalogue and the use cases behind it

        if self.built is None:
            self.built = Handlers(surface)

    def schema_of(self, name: str) -> Mapping[str, Any] | None:
        """A tool's input schema for HTTP header validation (None, so skipped, before the root is open)."""
        return self.built.surface.gateway.schema_of(name) if self.built is not None else None

    def request(self, pick: Callable[[Handlers], Callable[..., Awaitable[Any]]]) -> Callable[..., Awaitable[Any]]:
        """A request handler that waits for the root, then runs the handler ``pick`` chooses."""

        async def handler(ctx: Ctx, params: Any) -> Any:
            return await pick(await self.get())(ctx, params)

        return handler

    def middleware(self, pick: Callable[[Handlers], Middleware], methods: Callable[[str], bool]) -> Middleware:
        """A middleware that, for ``methods`` only, waits for the root and runs the one ``pick`` chooses."""

        async def middleware(ctx: Ctx, call_next: Any) -> Any:
            if not methods(ctx.method):  # initialize, ping, server/discover... never wait for the root
                return await call_next(ctx)
            return await pick(await self.get())(ctx, call_next)

        return middleware


def _tasks_or_calls(method: str) -> bool:
    """The methods the task adapter may answer itself: ``tools/call`` and every ``tasks/*``."""
    return method == "tools/call" or method.startswith("tasks/")


def build_server(source: Root | SurfaceSource) -> DeeprServer:
    """A server over the composition root; requests other than ``initialize`` and ``ping`` wait until it is open.

    ``source`` is the root itself (already open, its lifespan owned by the caller: the handlers are
    built now) or a ``SurfaceSource`` still opening (the stdio transport's ``Opening``).
    """
    handlers = DeferredHandlers(source)
    surface = getattr(source, "surface", None)  # an open Root has one
    if surface is not None:
        handlers.build(surface)

    @asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[Any]:
        yield surface

    resources = {hook: handlers.request(lambda h, hook=hook: h.resources[hook]) for hook in RESOURCE_HOOKS}
    server = DeeprServer(
        "deepr-mcp",
        version=__version__,
        title="deepr-mcp research server",
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        get_tool_input_schema=handlers.schema_of,
        on_list_tools=handlers.request(lambda h: h.tools.list_tools),
        on_call_tool=handlers.request(lambda h: h.tools.call_tool),
        **PromptHandlers().server_kwargs(),
        **resources,
    )
    for method, params_type in TASK_PARAMS.items():
        server.add_request_handler(
            method, params_type, handlers.request(lambda h, method=method: h.task_routes[method])
        )
    # Outermost: requestState sealed on the way out and verified on the way in (app/request_state.py)
    server.middleware.append(handlers.middleware(lambda h: h.sealing, INPUT_REQUIRED_METHODS.__contains__))
    # campaign_start as a task (both eras) and the 2026-07-28 tasks/* methods: main's one adapter, ``Tasks``
    server.middleware.append(handlers.middleware(lambda h: h.tasks, _tasks_or_calls))
    return server
