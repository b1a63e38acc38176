"""Expert tools: persistent knowledge bases built from campaigns, queried with citations."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from deepr_mcp.errors import InvalidInput
from deepr_mcp.experts.knowledge import answer
from deepr_mcp.gateway.spec import define_tool
from deepr_mcp.jobs.request import MAX_SUB_QUESTIONS, CampaignRequest
from deepr_mcp.tools.campaigns import Strict, _started
from deepr_mcp.tools.context import ToolContext

ExpertId = Field(min_length=2, max_length=64, pattern=r"^[A-Za-z0-9_-]+$", description="Expert id")


class ExpertRef(Strict):
    expert_id: str = ExpertId


class CreateInput(Strict):
    name: str = Field(min_length=2, max_length=80, description="A unique name, e.g. 'Submarine cables'")
    description: str = Field("", max_length=2000, description="What this expert should know about")
    question: str | None = Field(None, min_length=3, max_length=2000, description="Research this now to seed it")
    budget: float | None = Field(None, gt=0, le=10_000, description="Dollar limit for the seeding campaign")


@define_tool(
    "expert_create",
    "Create a named expert: a persistent knowledge base of beliefs and gaps that campaigns feed; "
    "optionally start a seeding research campaign.",
    CreateInput,
    category="expert",
    scope="research",
    read_only=False,
)
async def expert_create(ctx: ToolContext, args: CreateInput) -> dict[str, Any]:
    expert = await ctx.services.experts.create(args.name, args.description, owner=ctx.principal.name)
    out: dict[str, Any] = {"expert": expert.profile()}
    if args.question:
        campaign = await ctx.services.campaigns.start(
            CampaignRequest(question=args.question, budget=args.budget),
            owner=ctx.connection_id,
            principal=ctx.principal.name,
            expert_id=expert.id,
        )
        out["campaign"] = _started(campaign)
    return out


@define_tool(
    "expert_list",
    "List all experts with their belief and gap counts.",
    Strict,
    category="expert",
    scope="read",
    read_only=True,
)
async def expert_list(ctx: ToolContext, args: Strict) -> dict[str, Any]:
    experts = [e for e in await ctx.services.experts.list() if ctx.principal.can_see(e.owner, e.shared_with)]
    return {
        "experts": [
            {"expert_id": e.id, "name": e.name, "beliefs": len(e.beliefs), "gaps": len(e.gaps)} for e in experts
        ]
    }


@define_tool(
    "expert_profile",
    "Show an expert's profile: what it covers, how many beliefs and gaps, its strongest beliefs, its campaigns.",
    ExpertRef,
    category="expert",
    scope="read",
    read_only=True,
)
async def expert_profile(ctx: ToolContext, args: ExpertRef) -> dict[str, Any]:
    return (await ctx.services.experts.get(args.expert_id)).profile()


class QueryInput(ExpertRef):
    question: str = Field(min_length=3, max_length=2000, description="What to ask the expert")
    limit: int = Field(5, ge=1, le=20)


@define_tool(
    "expert_query",
    "Ask an expert a question: it answers from its accumulated beliefs only, with numbered source citations, "
    "and says when the question is a gap in its knowledge.",
    QueryInput,
    category="expert",
    scope="read",
    read_only=True,
)
async def expert_query(ctx: ToolContext, args: QueryInput) -> dict[str, Any]:
    return answer(await ctx.services.experts.get(args.expert_id), args.question, args.limit)


@define_tool(
    "expert_gaps",
    "List the open questions an expert's research could not answer, with why.",
    ExpertRef,
    category="expert",
    scope="read",
    read_only=True,
)
async def expert_gaps(ctx: ToolContext, args: ExpertRef) -> dict[str, Any]:
    expert = await ctx.services.experts.get(args.expert_id)
    return {"expert_id": expert.id, "gaps": [g.model_dump(mode="json") for g in expert.gaps]}


class FillInput(ExpertRef):
    questions: list[str] | None = Field(None, max_length=8, description="Gaps to research (default: all open)")
    budget: float | None = Field(None, gt=0, le=10_000)


@define_tool(
    "expert_fill_gaps",
    "Start a research campaign on an expert's open gaps; its findings feed the expert when it finishes.",
    FillInput,
    category="expert",
    scope="research",
    read_only=False,
    open_world=True,
)
async def expert_fill_gaps(ctx: ToolContext, args: FillInput) -> dict[str, Any]:
    expert = await ctx.services.experts.get(args.expert_id)
    questions = args.questions or [g.question for g in expert.gaps]
    if not questions:
        raise InvalidInput(f"expert {expert.id} has no open gaps; pass questions to research anyway")
    question = "; ".join(q.rstrip("?") for q in questions[:8]) + "?"
    request = CampaignRequest(
        question=question[:2000], budget=args.budget, max_sub_questions=min(MAX_SUB_QUESTIONS, len(questions) + 1)
    )
    campaign = await ctx.services.campaigns.start(
        request, owner=ctx.connection_id, principal=ctx.principal.name, expert_id=expert.id
    )
    return {"expert_id": expert.id, "researching": questions[:8], **_started(campaign)}


@define_tool(
    "expert_delete",
    "Delete an expert and its knowledge base.",
    ExpertRef,
    category="expert",
    scope="admin",
    read_only=False,
    destructive=True,
    idempotent=True,
)
async def expert_delete(ctx: ToolContext, args: ExpertRef) -> dict[str, Any]:
    await ctx.services.experts.delete(args.expert_id)
    return {"expert_id": args.expert_id, "deleted": True}


TOOLS = [expert_create, expert_list, expert_profile, expert_query, expert_gaps, expert_fill_gaps, expert_delete]
