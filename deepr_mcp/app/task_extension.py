"""The 2026-07-28 tasks extension (SEP-2663, ``io.modelcontextprotocol/tasks``) over campaign records.

Modern clients that declare the extension (in the request's ``_meta`` client capabilities) get a
flat ``CreateTaskResult`` (``resultType: "task"``) from ``campaign_start`` without asking: the
server decides what runs as a task. They poll ``tasks/get`` (the finished report is inlined as
``result``, a budget question as ``inputRequests``), answer with ``tasks/update`` and stop with
``tasks/cancel`` (an empty ack). ``tasks/result`` and ``tasks/list`` do not exist in that era.
Handshake clients keep the 2025-11-25 tasks of ``app/tasks.py``; both read the same records.

The mcp 2.3 SDK defines the vocabulary (``resultType`` is an open union, the -32021 code) but no
server for this extension, so it is served here.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from deepr_mcp.app.connections import connection_of, is_modern
from deepr_mcp.app.tasks import POLL_INTERVAL_MS, TASK_STATUS
from deepr_mcp.auth.access import require_scope
from deepr_mcp.auth.principals import principal_of
from deepr_mcp.elicitation import form
from deepr_mcp.elicitation.inline import INPUT_KEY
from deepr_mcp.errors import Conflict, DeeprError, NotFound
from deepr_mcp.jobs import views
from deepr_mcp.jobs.models import Campaign, CampaignPhase

Ctx = ServerRequestContext[Any, Any]
EXTENSION = "io.modelcontextprotocol/tasks"


class TaskIdParams(BaseModel):
    """``tasks/get`` and ``tasks/cancel`` params."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")
    task_id: str = Field(alias="taskId", min_length=1)


class UpdateTaskParams(TaskIdParams):
    """``tasks/update`` params: answers keyed like the ``inputRequests`` they fulfil."""

    input_responses: dict[str, Any] = Field(default_factory=dict, alias="inputResponses")


def declares_extension(ctx: Ctx) -> bool:
    """Whether this request's client declared the tasks extension (per request in the modern era)."""
    capabilities = connection_of(ctx).client_capabilities
    return capabilities is not None and EXTENSION in (capabilities.extensions or {})


def _require_extension(ctx: Ctx) -> None:
    if not declares_extension(ctx):
        raise MCPError(
            code=MISSING_REQUIRED_CLIENT_CAPABILITY,
            message=f"{ctx.method} needs the {EXTENSION} extension: declare it under "
            "_meta io.modelcontextprotocol/clientCapabilities.extensions",
            data={"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
        )


def task_fields(campaign: Campaign) -> dict[str, Any]:
    """The ``Task`` members every task answer carries (SEP-2663 names: ``ttlMs``, ``pollIntervalMs``)."""
    status = TASK_STATUS.get(campaign.phase, "working")
    message = campaign.active_tasks[0] if campaign.active_tasks else campaign.phase.value
    if campaign.open_question is not None:
        message = "budget decision needed: answer the inputRequests with tasks/update"
    return {
        "taskId": campaign.id,
        "status": status,
        "statusMessage": f"{campaign.phase.value} {campaign.progress:.0%}: {message}",
        "createdAt": campaign.created_at.isoformat(),
        "lastUpdatedAt": campaign.updated_at.isoformat(),
        "ttlMs": campaign.task_ttl_ms,
        "pollIntervalMs": POLL_INTERVAL_MS,
    }


def detailed_task(campaign: Campaign) -> dict[str, Any]:
    """``tasks/get``: the task, plus the report once complete, the reason once failed, or the open question."""
    task = task_fields(campaign)
    if campaign.phase == CampaignPhase.COMPLETE:
        result = types.CallToolResult(
            content=[types.TextContent(text=views.report_text(campaign))],
            structured_content=views.status_view(campaign),
            is_error=False,
        )
        task["result"] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    elif campaign.phase == CampaignPhase.FAILED:
        task["error"] = {"code": INTERNAL_ERROR, "message": f"campaign {campaign.id} failed: {campaign.error}"}
    elif campaign.open_question is not None:
        q = campaign.open_question
        request = types.ElicitRequest(
            params=types.ElicitRequestFormParams(
                message=form.message(campaign.id, campaign.question, q, None), requested_schema=form.schema(q)
            )
        )
        task["inputRequests"] = {INPUT_KEY: request.model_dump(mode="json", by_alias=True, exclude_none=True)}
    return task


class TaskExtension:
    """SEP-2663 handlers over the campaign records (the same records as the 2025-11-25 tasks)."""

    def __init__(self, surface: Any) -> None:
        self.campaigns = surface.tools.campaigns
        self.store = surface.tools.store
        self.jobs = surface.tools.jobs
        self.access = surface.access

    async def _campaign(self, ctx: Ctx, task_id: str, scope: str) -> Campaign:
        """The task's campaign if the caller holds ``scope`` and may see it (owner, shared, or admin)."""
        try:
            campaign = await self.access.campaign(principal_of(ctx), task_id, scope, action=ctx.method)
        except NotFound:
            campaign = None
        except DeeprError as exc:  # Forbidden: names the missing scope or the owner
            raise MCPError(code=INVALID_PARAMS, message=exc.message) from None
        if campaign is None or not campaign.is_task:
            raise MCPError(code=INVALID_PARAMS, message=f"no task {task_id!r}; campaign_start creates tasks")
        return campaign

    async def start(self, ctx: Ctx, arguments: dict[str, Any]) -> dict[str, Any]:
        """The flat ``CreateTaskResult`` for a campaign_start from a client that declared the extension."""
        question = arguments.get("question")
        if not isinstance(question, str):
            raise MCPError(code=INVALID_PARAMS, message="campaign_start needs a question (string)")
        principal = principal_of(ctx)
        try:
            require_scope(principal, "research", "tool campaign_start")
            campaign = await self.campaigns.start(
                question, budget=arguments.get("budget"), owner=None, principal=principal.name, as_task=True
            )
        except DeeprError as exc:
            raise MCPError(code=INVALID_PARAMS, message=exc.message) from None
        return {"resultType": "task", **task_fields(campaign)}

    async def get(self, ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
        _require_extension(ctx)
        typed = _parse(TaskIdParams, params)
        return detailed_task(await self._campaign(ctx, typed.task_id, "read"))

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
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"inputResponses.{INPUT_KEY} must be an elicitation result: "
                "{'action': 'accept'|'decline'|'cancel', 'content': {...}}",
            ) from None
        answer = form.validate(response.content, q) if response.action == "accept" else form.Answer("abort")
        if isinstance(answer, str):
            raise MCPError(code=INVALID_PARAMS, message=answer)
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

    async def cancel(self, ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
        """An empty ack, also for a task that already ended (idempotent); the next tasks/get shows the status."""
        _require_extension(ctx)
        campaign = await self._campaign(ctx, _parse(TaskIdParams, params).task_id, "research")
        try:
            await self.jobs.cancel(campaign.id)
        except Conflict:
            pass
        return {}


def _parse(model: type[TaskIdParams], params: dict[str, Any] | None) -> Any:
    try:
        return model.model_validate(params or {})
    except ValidationError as exc:
        fields = ", ".join(".".join(str(p) for p in e["loc"]) or "params" for e in exc.errors())
        raise MCPError(code=INVALID_PARAMS, message=f"invalid params ({fields}): taskId must be a string") from None


def not_in_this_era(method: str) -> MCPError:
    return MCPError(
        code=METHOD_NOT_FOUND,
        message=f"{method} does not exist in protocol 2026-07-28 (tasks extension): use tasks/get, which inlines "
        "the result, and keep the task ids campaign_start returned",
    )


def started_campaign(params: dict[str, Any]) -> dict[str, Any] | None:
    """The campaign_start arguments of a tools/call (direct or through tool_call), else None."""
    name, arguments = params.get("name"), params.get("arguments") or {}
    if name == "tool_call" and isinstance(arguments, dict):
        name, arguments = arguments.get("name"), arguments.get("arguments") or {}
    return arguments if name == "campaign_start" and isinstance(arguments, dict) else None


class ModernTasks:
    """Server middleware: the extension's methods, and campaign_start as a task, for 2026-07-28 requests."""

    def __init__(self, extension: TaskExtension) -> None:
        self.extension = extension
        self.routes = {"tasks/get": extension.get, "tasks/update": extension.update, "tasks/cancel": extension.cancel}

    async def __call__(self, ctx: Ctx, call_next: Any) -> Any:
        if not is_modern(ctx):
            return await call_next(ctx)
        params = ctx.params if isinstance(ctx.params, dict) else {}
        if ctx.method in ("tasks/result", "tasks/list"):
            raise not_in_this_era(ctx.method)
        if ctx.method in self.routes:  # answered here, so the 2026 envelope's resultType is ours to set
            return {"resultType": "complete", **await self.routes[ctx.method](ctx, params)}
        if ctx.method == "tools/call" and declares_extension(ctx):
            arguments = started_campaign(params)
            if arguments is not None:
                return await self.extension.start(ctx, arguments)
        return await call_next(ctx)
