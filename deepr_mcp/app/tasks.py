"""MCP tasks (2025-11-25) served from campaign records.

A task-augmented ``campaign_start`` returns a task whose id is the campaign id; ``tasks/get``,
``tasks/result``, ``tasks/cancel`` and ``tasks/list`` read and steer the same records, and a
watcher sends ``notifications/tasks/status`` to the creating connection on every phase change.
There is no second store to drift out of step with the campaign.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from deepr_mcp.app.connections import connection_id, connection_of
from deepr_mcp.app.surface import Surface
from deepr_mcp.auth.access import require_scope, visible_to
from deepr_mcp.auth.principals import principal_of
from deepr_mcp.errors import Conflict, DeeprError, NotFound
from deepr_mcp.jobs import views
from deepr_mcp.jobs.models import Campaign, CampaignPhase

Ctx = ServerRequestContext[Surface, Any]
RELATED_TASK = "io.modelcontextprotocol/related-task"
POLL_INTERVAL_MS = 2000

TASK_STATUS = {
    # a campaign phase as a task status, in both tasks eras (any other phase is "working")
    CampaignPhase.COMPLETE: "completed",
    CampaignPhase.FAILED: "failed",
    CampaignPhase.CANCELLED: "cancelled",
    CampaignPhase.AWAITING_APPROVAL: "input_required",
}


def task_of(campaign: Campaign) -> types.Task:
    status = TASK_STATUS.get(campaign.phase, "working")
    message = campaign.active_tasks[0] if campaign.active_tasks else campaign.phase.value
    if campaign.open_question is not None:
        message = f"budget decision needed: call budget_decide for campaign {campaign.id}"
    return types.Task(
        task_id=campaign.id,
        status=status,  # type: ignore[arg-type]
        status_message=f"{campaign.phase.value} {campaign.progress:.0%}: {message}",
        created_at=campaign.created_at.isoformat(),
        last_updated_at=campaign.updated_at.isoformat(),
        ttl=campaign.task_ttl_ms,
        poll_interval=POLL_INTERVAL_MS,
    )


def final_result(campaign: Campaign) -> types.CallToolResult:
    """What the task's tools/call finally returns: the report, with the status as structured content."""
    status = views.status_view(campaign)
    return types.CallToolResult(
        content=[types.TextContent(text=views.report_text(campaign))],
        structured_content=status,
        is_error=campaign.phase != CampaignPhase.COMPLETE,
        meta={RELATED_TASK: {"taskId": campaign.id}},
    )


def _error(exc: DeeprError) -> MCPError:
    return MCPError(code=INVALID_PARAMS, message=exc.message)


class TaskHandlers:
    """``tasks/*`` and the task-augmented ``campaign_start``, over the campaign records and feed."""

    def __init__(self, surface: Surface) -> None:
        self.campaigns = surface.tools.campaigns
        self.store = surface.tools.store
        self.jobs = surface.tools.jobs
        self.feed = surface.tools.feed
        self.spawn = surface.spawn
        self.access = surface.access

    def routes(self) -> dict[str, tuple[type, Any]]:
        """The ``tasks/*`` request handlers by method, with their params types."""
        return {
            "tasks/get": (types.GetTaskRequestParams, self.get),
            "tasks/result": (types.GetTaskPayloadRequestParams, self.result),
            "tasks/cancel": (types.CancelTaskRequestParams, self.cancel),
            "tasks/list": (types.PaginatedRequestParams, self.list),
        }

    async def _task_campaign(self, ctx: Ctx, task_id: str, scope: str = "read") -> Campaign:
        """The task's campaign if the caller holds ``scope`` and may see it."""
        try:
            campaign = await self.access.campaign(principal_of(ctx), task_id, scope, action=ctx.method)
        except NotFound:
            raise MCPError(
                code=INVALID_PARAMS, message=f"no task {task_id!r}; tasks/list shows the ids that exist"
            ) from None
        except DeeprError as exc:
            raise _error(exc) from None
        if not campaign.is_task:
            raise MCPError(code=INVALID_PARAMS, message=f"campaign {task_id} was not started as a task")
        return campaign

    async def watch_and_notify(self, ctx: Ctx, campaign_id: str) -> None:
        """Send notifications/tasks/status on every phase change until the task ends or the client goes."""
        connection = connection_of(ctx)
        last: str | None = None
        async for campaign in self.feed.follow(campaign_id, "complete", heartbeat_s=30):
            task = task_of(campaign)
            if task.status_message != last or campaign.terminal:
                last = task.status_message
                params = task.model_dump(mode="json", by_alias=True, exclude_none=True)
                await connection.notify("notifications/tasks/status", params)

    async def start(self, ctx: Ctx, arguments: dict[str, Any], ttl: int | None) -> types.CreateTaskResult:
        question = arguments.get("question")
        if not isinstance(question, str):
            raise MCPError(code=INVALID_PARAMS, message="campaign_start needs a question (string)")
        principal = principal_of(ctx)
        try:
            require_scope(principal, "research", "tool campaign_start")
            campaign = await self.campaigns.start(
                question,
                budget=arguments.get("budget"),
                owner=connection_id(ctx),
                principal=principal.name,
                as_task=True,
                task_ttl_ms=ttl,
            )
        except DeeprError as exc:
            raise _error(exc) from None
        self.spawn(self.watch_and_notify, ctx, campaign.id)
        return types.CreateTaskResult(task=task_of(campaign))

    async def get(self, ctx: Ctx, params: types.GetTaskRequestParams) -> types.GetTaskResult:
        campaign = await self._task_campaign(ctx, params.task_id)
        return types.GetTaskResult(**task_of(campaign).model_dump())

    async def result(self, ctx: Ctx, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        """Blocks until the task is done (spec), then the report."""
        campaign = await self._task_campaign(ctx, params.task_id)
        async for update in self.feed.follow(campaign.id, "complete", heartbeat_s=30):
            campaign = update
        return final_result(campaign).model_dump(mode="json", by_alias=True, exclude_none=True)

    async def cancel(self, ctx: Ctx, params: types.CancelTaskRequestParams) -> types.CancelTaskResult:
        campaign = await self._task_campaign(ctx, params.task_id, "research")
        try:
            await self.jobs.cancel(campaign.id)
        except Conflict as exc:
            raise _error(exc) from None
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
            raise _error(exc) from None
        campaigns, total = await self.store.list(limit=50, offset=offset, visible_to=visible_to(principal))
        tasks = [task_of(c) for c in campaigns if c.is_task]
        next_cursor = str(offset + 50) if offset + 50 < total else None
        return types.ListTasksResult(tasks=tasks, next_cursor=next_cursor)
