"""Campaign tools: start research in the background, steer it, and read what it found."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from deepr_mcp.auth.access import visible_to
from deepr_mcp.auth.principals import SHARE_ALL
from deepr_mcp.errors import InvalidInput
from deepr_mcp.gateway.spec import define_tool
from deepr_mcp.jobs import views
from deepr_mcp.jobs.models import CampaignPhase
from deepr_mcp.jobs.request import CampaignRequest
from deepr_mcp.tools.context import ToolContext

CampaignId = Field(min_length=2, max_length=64, pattern=r"^[A-Za-z0-9_-]+$", description="Campaign id")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class CampaignRef(Strict):
    campaign_id: str = CampaignId


def _started(campaign: Any) -> dict[str, Any]:
    return {
        "campaign_id": campaign.id,
        "phase": campaign.phase.value,
        "budget": campaign.budget,
        "resources": campaign.uris(),
        "next": {
            "tool": "campaign_wait",
            "arguments": {"campaign_id": campaign.id, "until": "change", "since": campaign.version},
            "or_subscribe": campaign.uris()["status"],
        },
    }


@define_tool(
    "campaign_start",
    "Start a research campaign in the background: plans sub-questions, gathers cited evidence from the "
    "corpus, writes a report. Returns at once with the campaign id and resource URIs to follow. "
    "Give queries: the terms the documentation likely uses for what the user asks (users and docs word things "
    "differently), so evidence is found however the question is phrased.",
    CampaignRequest,
    category="campaign",
    scope="research",
    read_only=False,
    open_world=True,
)
async def campaign_start(ctx: ToolContext, args: CampaignRequest) -> dict[str, Any]:
    campaign = await ctx.services.campaigns.start(
        args,
        owner=ctx.connection_id,
        principal=ctx.principal.name,
        progress=ctx.later_progress,
    )
    return _started(campaign)


@define_tool(
    "campaign_status",
    "Show a campaign's phase, progress, cost against budget, active tasks and any open budget question.",
    CampaignRef,
    category="campaign",
    scope="read",
    read_only=True,
)
async def campaign_status(ctx: ToolContext, args: CampaignRef) -> dict[str, Any]:
    campaign = await ctx.services.store.get(args.campaign_id)
    uri = campaign.uris()["status"]
    return views.status_view(campaign, ctx.services.feed.subscriber_count(uri))


class ListInput(Strict):
    phase: CampaignPhase | None = Field(None, description="Only campaigns in this phase")
    limit: int = Field(20, ge=1, le=100)
    offset: int = Field(0, ge=0, le=1_000_000)


@define_tool(
    "campaign_list",
    "List research campaigns, newest first, optionally filtered by phase, with paging.",
    ListInput,
    category="campaign",
    scope="read",
    read_only=True,
)
async def campaign_list(ctx: ToolContext, args: ListInput) -> dict[str, Any]:
    campaigns, total = await ctx.services.store.list(
        phases=[args.phase] if args.phase else None,
        limit=args.limit,
        offset=args.offset,
        visible_to=visible_to(ctx.principal),
    )
    items = [
        {
            "campaign_id": c.id,
            "question": c.question,
            "phase": c.phase.value,
            "progress": c.progress,
            "cost": round(c.cost, 6),
            "budget": c.budget,
            "owner": c.owner,
            "created_at": c.created_at.isoformat(),
        }
        for c in campaigns
    ]
    more = args.offset + len(items) < total
    return {
        "total": total,
        "offset": args.offset,
        "campaigns": items,
        "next_offset": args.offset + len(items) if more else None,
    }


@define_tool(
    "campaign_cancel",
    "Cancel a running, queued or paused campaign; what was gathered is kept as a partial report.",
    CampaignRef,
    category="campaign",
    scope="research",
    read_only=False,
    destructive=True,
    idempotent=True,
)
async def campaign_cancel(ctx: ToolContext, args: CampaignRef) -> dict[str, Any]:
    campaign = await ctx.services.jobs.cancel(args.campaign_id)
    return {"campaign_id": campaign.id, "phase": campaign.phase.value, "cancel_requested": True}


@define_tool(
    "campaign_pause",
    "Pause a running campaign after its current step; resume it later with campaign_resume.",
    CampaignRef,
    category="campaign",
    scope="research",
    read_only=False,
    idempotent=True,
)
async def campaign_pause(ctx: ToolContext, args: CampaignRef) -> dict[str, Any]:
    campaign = await ctx.services.jobs.pause(args.campaign_id)
    return {"campaign_id": campaign.id, "phase": campaign.phase.value, "pause_requested": True}


@define_tool(
    "campaign_resume",
    "Resume a paused campaign from its last finished step.",
    CampaignRef,
    category="campaign",
    scope="research",
    read_only=False,
    idempotent=True,
)
async def campaign_resume(ctx: ToolContext, args: CampaignRef) -> dict[str, Any]:
    campaign = await ctx.services.jobs.resume(args.campaign_id)
    return {"campaign_id": campaign.id, "phase": campaign.phase.value}


@define_tool(
    "campaign_plan",
    "Show a campaign's research plan: its sub-questions and how well each is answered so far.",
    CampaignRef,
    category="campaign",
    scope="read",
    read_only=True,
)
async def campaign_plan(ctx: ToolContext, args: CampaignRef) -> dict[str, Any]:
    return views.plan_view(await ctx.services.store.get(args.campaign_id))


@define_tool(
    "campaign_beliefs",
    "Show a campaign's findings (claims with confidence 0-1 and numbered citations) and its evidence gaps.",
    CampaignRef,
    category="campaign",
    scope="read",
    read_only=True,
)
async def campaign_beliefs(ctx: ToolContext, args: CampaignRef) -> dict[str, Any]:
    return views.beliefs_view(await ctx.services.store.get(args.campaign_id))


@define_tool(
    "campaign_report",
    "Get a campaign's final cited report in markdown (a partial report if it was stopped early).",
    CampaignRef,
    category="campaign",
    scope="read",
    read_only=True,
    whole=True,
)
async def campaign_report(ctx: ToolContext, args: CampaignRef) -> str:
    return views.report_text(await ctx.services.store.get(args.campaign_id))


@define_tool(
    "campaign_sources",
    "List the passages a campaign cites, by citation number, with their source file and location.",
    CampaignRef,
    category="campaign",
    scope="read",
    read_only=True,
    whole=True,
)
async def campaign_sources(ctx: ToolContext, args: CampaignRef) -> dict[str, Any]:
    return views.sources_view(await ctx.services.store.get(args.campaign_id))


class FollowUpInput(CampaignRef):
    question: str = Field(min_length=3, max_length=2000, description="The follow-up question")
    budget: float | None = Field(None, gt=0, le=10_000, description="Dollar limit for the new campaign")


@define_tool(
    "campaign_follow_up",
    "Start a new campaign that follows up an earlier one: asks a further question in its context.",
    FollowUpInput,
    category="campaign",
    scope="research",
    read_only=False,
    open_world=True,
)
async def campaign_follow_up(ctx: ToolContext, args: FollowUpInput) -> dict[str, Any]:
    campaign = await ctx.services.campaigns.follow_up(
        args.campaign_id,
        CampaignRequest(question=args.question, budget=args.budget),
        owner=ctx.connection_id,
        principal=ctx.principal.name,
    )
    return {**_started(campaign), "follows": args.campaign_id}


class WaitInput(CampaignRef):
    until: Literal["change", "phase", "complete", "decision"] = Field(
        "change", description="change: any update; phase: a new phase; complete: finished; decision: budget question"
    )
    since: int | None = Field(None, ge=0, description="The version your last answer returned")
    timeout_s: float = Field(
        25, gt=0, le=55, description="Longest wait in seconds (default 25, under common 30 s client timeouts; max 55)"
    )


@define_tool(
    "campaign_wait",
    "Wait (up to 55 s) until a campaign changes as asked, instead of polling; returns its state, what changed "
    "and the call to make next, including the budget_decide call when a budget decision is pending.",
    WaitInput,
    category="campaign",
    scope="read",
    read_only=True,
)
async def campaign_wait(ctx: ToolContext, args: WaitInput) -> dict[str, Any]:
    return await ctx.services.campaigns.wait(
        args.campaign_id, until=args.until, since=args.since, timeout_s=args.timeout_s, progress=ctx.report_progress
    )


campaign_start.task_support = "optional"


@define_tool(
    "campaign_delete",
    "Delete a finished (complete, failed or cancelled) campaign: its record, resources and sandbox files.",
    CampaignRef,
    category="campaign",
    scope="admin",
    read_only=False,
    destructive=True,
    idempotent=True,
)
async def campaign_delete(ctx: ToolContext, args: CampaignRef) -> dict[str, Any]:
    await ctx.services.campaigns.delete(args.campaign_id)
    return {"campaign_id": args.campaign_id, "deleted": True}


PrincipalName = Annotated[str, Field(min_length=1, max_length=512, pattern=r"^[^\s*]\S*$")]
"""A configured principal (``alice``) or an OAuth one (``https://issuer#sub=alice``): no spaces, no leading ``*``."""


class ShareInput(CampaignRef):
    principals: list[PrincipalName] | Literal["all"] = Field(
        description='Principal names to share with, or "all" for every principal of this server'
    )


@define_tool(
    "campaign_share",
    'Share a campaign you own with other principals (or "all") so the agents of a team can list, read, '
    "subscribe to and wait on it, and steer it within their own scopes: an approver answers its budget questions.",
    ShareInput,
    category="campaign",
    scope="research",
    ownership="own",
    read_only=False,
    idempotent=True,
)
async def campaign_share(ctx: ToolContext, args: ShareInput) -> dict[str, Any]:
    principals = [SHARE_ALL] if args.principals == "all" else list(args.principals)
    if not principals:
        raise InvalidInput('principals is empty; name at least one principal, or pass "all"')
    campaign = await ctx.services.campaigns.share(args.campaign_id, principals)
    return {"campaign_id": campaign.id, "owner": campaign.owner, "shared_with": campaign.shared_with}


class UnshareInput(CampaignRef):
    principals: list[PrincipalName] | Literal["all"] = Field(
        description='Principal names to take the share back from, or "all" to end every share'
    )


@define_tool(
    "campaign_unshare",
    'Take back a share of a campaign you own from some principals (or "all"): from then on they cannot list, '
    "read, wait on or steer it (a subscription they opened before may still say it changed; reading is refused).",
    UnshareInput,
    category="campaign",
    scope="research",
    ownership="own",
)
async def campaign_unshare(ctx: ToolContext, args: UnshareInput) -> dict[str, Any]:
    if args.principals != "all" and not args.principals:
        raise InvalidInput('principals is empty; name at least one principal, or pass "all"')
    before = set((await ctx.services.store.get(args.campaign_id)).shared_with)
    names = None if args.principals == "all" else list(args.principals)
    campaign = await ctx.services.campaigns.unshare(args.campaign_id, names)
    answer: dict[str, Any] = {"campaign_id": campaign.id, "owner": campaign.owner, "shared_with": campaign.shared_with}
    if names is not None and (missing := sorted(set(names) - before)):
        answer["not_shared_with"] = missing  # nothing to take back from them: said, not an error
    return answer


TOOLS = [
    campaign_share,
    campaign_unshare,
    campaign_delete,
    campaign_start,
    campaign_status,
    campaign_list,
    campaign_cancel,
    campaign_pause,
    campaign_resume,
    campaign_plan,
    campaign_beliefs,
    campaign_report,
    campaign_sources,
    campaign_follow_up,
    campaign_wait,
]
