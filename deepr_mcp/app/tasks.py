"""MCP tasks in both eras: one adapter from ``campaign_start``-as-a-task to the campaign use case.

A 2025-11-25 client asks for a task with the ``task`` param of ``tools/call``; a 2026-07-28 client
that declares the ``io.modelcontextprotocol/tasks`` extension (SEP-2663) gets one without asking,
because there the server decides what runs as a task. Either way the call goes through the gateway's
``check`` (the same input model, scope and ownership checks, and the same refusal as a plain call)
and then ``Campaigns.start``; the task id is the campaign id, and ``tasks/*`` read and steer the
campaign record, so there is no second store to drift out of step.

Refusals: a 2026-07-28 call is answered as the plain call would be (a tool result with ``isError``,
since the server may answer any call directly); a 2025-11-25 task-augmented call, whose client waits
for a ``CreateTaskResult``, gets JSON-RPC ``-32602`` with the same message. The SDK sieves every
``tools/call`` result to ``CallToolResult``, so task creation is a server middleware that answers
before the sieve; the mcp 2.3 SDK has no server for the extension, so its methods are answered here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from deepr_mcp.app.connections import TASKS_EXTENSION, connection_id, connection_of, is_modern
from deepr_mcp.app.surface import Surface
from deepr_mcp.app.task_views import detailed_task, final_result, task_fields, task_of
from deepr_mcp.app.wire import to_call_result
from deepr_mcp.auth.access import require_scope, visible_to
from deepr_mcp.auth.principals import principal_of
from deepr_mcp.elicitation import form
from deepr_mcp.elicitation.inline import INPUT_KEY, can_answer
from deepr_mcp.errors import Conflict, DeeprError, NotFound
from deepr_mcp.gateway.outcome import ToolOutcome
from deepr_mcp.jobs.models import Campaign

Ctx = ServerRequestContext[Surface, Any]
EXTENSION = TASKS_EXTENSION
STARTS_TASKS = "campaign_start"
MAX_TTL_MS = 30 * 24 * 3600 * 1000
"""The longest ``ttl`` kept (30 days); a receiver may shorten a requested ttl, and a longer one is."""


class TaskIdParams(BaseModel):
    """2026-07-28 ``tasks/get`` and ``tasks/cancel`` params."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")
    task_id: str = Field(alias="taskId", min_length=1)


class UpdateTaskParams(TaskIdParams):
    """``tasks/update`` params: answers keyed like the ``inputRequests`` they fulfil."""

    input_responses: dict[str, Any] = Field(default_factory=dict, alias="inputResponses")


def declares_extension(ctx: Ctx) -> bool:
    """Whether this request's client declared the tasks extension (per request in the modern era)."""
    capabilities = connection_of(ctx).client_capabilities
    return capabilities is not None and EXTENSION in (capabilities.extensions or {})


def _invalid(message: str, data: Any = None) -> MCPError:
    return MCPError(code=INVALID_PARAMS, message=message, data=data)


def _refused(outcome: ToolOutcome) -> MCPError:
    """A 2025-11-25 task creation refused: -32602 with the plain call's message (and its details as data)."""
    details = dict(outcome.structured or {})
    message = details.pop("error", outcome.text.removeprefix("Error: "))
    return _invalid(message, details or None)


def _parse(model: type[TaskIdParams], params: dict[str, Any] | None) -> Any:
    try:
        return model.model_validate(params or {})
    except ValidationError as exc:
        fields = ", ".join(".".join(str(p) for p in e["loc"]) or "params" for e in exc.errors())
        raise _invalid(f"invalid params ({fields}): taskId must be a string") from None


def _not_in_this_era(method: str) -> MCPError:
    return MCPError(
        code=METHOD_NOT_FOUND,
        message=f"{method} does not exist in protocol 2026-07-28 (tasks extension): use tasks/get, which inlines "
        "the result, and keep the task ids campaign_start returned",
    )


def _require_extension(ctx: Ctx) -> None:
    if not declares_extension(ctx):
        raise MCPError(
            code=MISSING_REQUIRED_CLIENT_CAPABILITY,
            message=f"{ctx.method} needs the {EXTENSION} extension: declare it under "
            "_meta io.modelcontextprotocol/clientCapabilities.extensions",
            data={"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
        )


class Tasks:
    """Task creation for both eras, the 2025-11-25 ``tasks/*`` handlers and the SEP-2663 ones."""

    def __init__(self, surface: Surface, tool_context: Callable[[Ctx], Any]) -> None:
        self.gateway = surface.gateway
        self.campaigns = surface.tools.campaigns
        self.store = surface.tools.store
        self.jobs = surface.tools.jobs
        self.feed = surface.tools.feed
        self.spawn = surface.spawn
        self.access = surface.access
        self.tool_context = tool_context
        self.modern_routes = {
            "tasks/get": self.get_modern,
            "tasks/update": self.update,
            "tasks/cancel": self.ack_cancel,
        }

    def routes(self) -> dict[str, Any]:
        """The 2025-11-25 ``tasks/*`` request handlers by method (``server.TASK_PARAMS`` holds their params types)."""
        return {
            "tasks/get": self.get,
            "tasks/result": self.result,
            "tasks/cancel": self.cancel,
            "tasks/list": self.list,
        }

    # -- creating: the one way a task comes to be -----------------------------------------------

    async def __call__(self, ctx: Ctx, call_next: Any) -> Any:
        """Server middleware: a ``tools/call`` that becomes a task, and the 2026-07-28 ``tasks/*`` methods."""
        modern = is_modern(ctx)
        params = ctx.params if isinstance(ctx.params, dict) else {}
        if modern and ctx.method in ("tasks/result", "tasks/list"):
            raise _not_in_this_era(ctx.method)
        if modern and ctx.method in self.modern_routes:  # answered here, so the envelope's resultType is ours
            return {"resultType": "complete", **await self.modern_routes[ctx.method](ctx, params)}
        if ctx.method != "tools/call":
            return await call_next(ctx)
        if modern:
            if not declares_extension(ctx):
                return await call_next(ctx)
            ttl = None
        else:
            if not isinstance(params.get("task"), dict):
                return await call_next(ctx)
            typed = types.CallToolRequestParams.model_validate(params, by_name=False)
            ttl = typed.task.ttl if typed.task else None
        target = self._target(params)
        if isinstance(target, ToolOutcome):  # tool_call's own arguments were wrong
            return self._refusal(modern, target)
        name, arguments = target
        if name != STARTS_TASKS:
            if modern:  # the server decides what runs as a task: anything else is a plain call
                return await call_next(ctx)
            raise _invalid(f"only {STARTS_TASKS} supports task-augmented calls, not {name!r}")
        created = await self.create(ctx, arguments, ttl)
        if isinstance(created, ToolOutcome):
            return self._refusal(modern, created)
        if modern:
            return {"resultType": "task", **task_fields(created, "2026-07-28")}
        self.spawn(self.watch_and_notify, ctx, created.id)
        return types.CreateTaskResult(task=task_of(created)).model_dump(mode="json", by_alias=True, exclude_none=True)

    def _target(self, params: dict[str, Any]) -> tuple[str, dict[str, Any]] | ToolOutcome:
        """The tool a ``tools/call`` runs and its arguments, looking through ``tool_call`` as the plain path does."""
        name, arguments = params.get("name"), params.get("arguments")
        if name == "tool_call":
            return self.gateway.unwrap_call(arguments if isinstance(arguments, dict) else None)
        return str(name), arguments if isinstance(arguments, dict) else {}

    @staticmethod
    def _refusal(modern: bool, outcome: ToolOutcome) -> dict[str, Any]:
        """2026-07-28: the plain call's tool error; 2025-11-25: raises -32602 with its message."""
        if not modern:
            raise _refused(outcome)
        result = to_call_result(outcome).model_dump(mode="json", by_alias=True, exclude_none=True)
        return {"resultType": "complete", **result}

    async def create(self, ctx: Ctx, arguments: dict[str, Any], ttl: int | None) -> Campaign | ToolOutcome:
        """Check ``campaign_start``'s arguments as a plain call would, then start the campaign as a task."""
        call = await self.gateway.check(self.tool_context(ctx), STARTS_TASKS, arguments)
        if isinstance(call, ToolOutcome):
            return call
        try:
            return await self.campaigns.start(
                call.validated,
                owner=connection_id(ctx),
                principal=principal_of(ctx).name,
                as_task=True,
                task_ttl_ms=None if ttl is None or ttl <= 0 else min(ttl, MAX_TTL_MS),
            )
        except DeeprError as exc:
            return ToolOutcome.from_exception(exc)

    async def watch_and_notify(self, ctx: Ctx, campaign_id: str) -> None:
        """2025-11-25: notifications/tasks/status on every change until the task ends or the client goes."""
        connection = connection_of(ctx)
        last: str | None = None
        async for campaign in self.feed.follow(campaign_id, "complete", heartbeat_s=30):
            task = task_of(campaign)
            if task.status_message != last or campaign.terminal:
                last = task.status_message
                params = task.model_dump(mode="json", by_alias=True, exclude_none=True)
                await connection.notify("notifications/tasks/status", params)

    # -- reading and steering: both eras ------------------------------------------------------

    async def _campaign(self, ctx: Ctx, task_id: str, scope: str) -> Campaign:
        """The task's campaign if the caller holds ``scope`` and may see it (owner, shared, or admin)."""
        try:
            campaign: Campaign | None = await self.access.campaign(principal_of(ctx), task_id, scope, action=ctx.method)
        except NotFound:
            campaign = None
        except DeeprError as exc:  # Forbidden: names the missing scope or the owner
            raise _invalid(exc.message) from None
        if campaign is None or not campaign.is_task:
            raise _invalid(f"no task {task_id!r}; the ids campaign_start returned as tasks are the ones that exist")
        return campaign

    async def get(self, ctx: Ctx, params: types.GetTaskRequestParams) -> types.GetTaskResult:
        campaign = await self._campaign(ctx, params.task_id, "read")
        return types.GetTaskResult(**task_of(campaign).model_dump())

    async def result(self, ctx: Ctx, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        """Blocks until the task is done (spec), then the report."""
        campaign = await self._campaign(ctx, params.task_id, "read")
        async for update in self.feed.follow(campaign.id, "complete", heartbeat_s=30):
            campaign = update
        return final_result(campaign).model_dump(mode="json", by_alias=True, exclude_none=True)

    async def cancel(self, ctx: Ctx, params: types.CancelTaskRequestParams) -> types.CancelTaskResult:
        campaign = await self._campaign(ctx, params.task_id, "research")
        try:
            await self.jobs.cancel(campaign.id)
        except Conflict as exc:
            raise _invalid(exc.message) from None
        with anyio.move_on_after(5):  # a running campaign stops at its next step boundary
            async for update in self.feed.follow(campaign.id, "complete", heartbeat_s=5):
                campaign = update
        return types.CancelTaskResult(**task_of(campaign).model_dump())

    async def list(self, ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListTasksResult:
        offset = int(params.cursor) if params is not None and params.cursor and params.cursor.isdigit() else 0
        principal = principal_of(ctx)
        try:
            require_scope(principal, "read", "tasks/list")
        except DeeprError as exc:
            raise _invalid(exc.message) from None
        campaigns, total = await self.store.list(limit=50, offset=offset, visible_to=visible_to(principal))
        tasks = [task_of(c) for c in campaigns if c.is_task]
        next_cursor = str(offset + 50) if offset + 50 < total else None
        return types.ListTasksResult(tasks=tasks, next_cursor=next_cursor)

    async def get_modern(self, ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
        _require_extension(ctx)
        campaign = await self._campaign(ctx, _parse(TaskIdParams, params).task_id, "read")
        return detailed_task(campaign, can_elicit=can_answer(ctx.session.client_capabilities))

    async def update(self, ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
        """Apply the answer to an open budget question; answers to nothing open are acknowledged and dropped."""
        _require_extension(ctx)
        typed = _parse(UpdateTaskParams, params)
        campaign = await self._campaign(ctx, typed.task_id, "approve")
        q, raw = campaign.open_question, typed.input_responses.get(INPUT_KEY)
        if q is None or raw is None:
            return {}
        try:
            response = types.ElicitResult.model_validate(raw, by_name=False)
        except ValidationError:
            raise _invalid(
                f"inputResponses.{INPUT_KEY} must be an elicitation result: "
                "{'action': 'accept'|'decline'|'cancel', 'content': {...}}"
            ) from None
        answer = form.validate(response.content, q) if response.action == "accept" else form.Answer("abort")
        if isinstance(answer, str):
            raise _invalid(answer)
        try:
            await self.jobs.decide(
                campaign.id,
                answer.decision,
                new_budget=answer.new_budget,
                channel="tasks/update",
                answered_by="2026-07-28 tasks extension",
                principal=principal_of(ctx).name,
            )
        except Conflict:
            pass  # settled on another channel meanwhile
        return {}

    async def ack_cancel(self, ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
        """An empty ack, also for a task that already ended (idempotent); the next tasks/get shows the status."""
        _require_extension(ctx)
        campaign = await self._campaign(ctx, _parse(TaskIdParams, params).task_id, "research")
        try:
            await self.jobs.cancel(campaign.id)
        except Conflict:
            pass
        return {}
