"""Budget and cost tools: answer a pending budget question, adjust a budget, see what was spent."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from deepr_mcp.auth.access import visible_to
from deepr_mcp.gateway.spec import define_tool
from deepr_mcp.jobs import views
from deepr_mcp.tools.campaigns import CampaignRef, Strict
from deepr_mcp.tools.context import ToolContext


class DecideInput(CampaignRef):
    decision: Literal["approve_override", "optimize_for_cost", "abort"] = Field(
        description="approve_override: raise the budget; optimize_for_cost: cheaper model, fewer sources; abort"
    )
    new_budget: float | None = Field(
        None, gt=0, le=10_000, description="Dollars; required for approve_override, above what is spent"
    )


@define_tool(
    "budget_decide",
    "Answer a campaign's pending budget question: approve_override with a new_budget, optimize_for_cost, or "
    "abort with a partial report. Works from any client, with or without elicitation support.",
    DecideInput,
    category="budget",
    scope="approve",
    read_only=False,
)
async def budget_decide(ctx: ToolContext, args: DecideInput) -> dict[str, Any]:
    campaign = await ctx.services.jobs.decide(
        args.campaign_id,
        args.decision,
        new_budget=args.new_budget,
        channel="budget_decide",
        answered_by=f"tool call on connection {ctx.connection_id or 'stateless'}",
        principal=ctx.principal.name,
    )
    return {"campaign_id": campaign.id, "decision": args.decision, "new_budget": args.new_budget, "accepted": True}


@define_tool(
    "budget_get",
    "Show a campaign's budget, spend so far, the open budget question if any, and the newest 50 decisions "
    "(older_decisions counts the ones before).",
    CampaignRef,
    category="budget",
    scope="read",
    read_only=True,
)
async def budget_get(ctx: ToolContext, args: CampaignRef) -> dict[str, Any]:
    campaign = await ctx.services.store.get(args.campaign_id)
    return {
        "campaign_id": campaign.id,
        "budget": campaign.budget,
        "spent": round(campaign.cost, 6),
        "remaining": round(campaign.budget - campaign.cost, 6),
        "open_question": campaign.open_question.model_dump(mode="json") if campaign.open_question else None,
        "settle_with": views.decide_call(campaign),
        "decisions": [d.model_dump(mode="json") for d in campaign.decisions],
        "older_decisions": campaign.older_decisions,
    }


class SetInput(CampaignRef):
    budget: float = Field(gt=0, le=10_000, description="New dollar limit; must exceed what is already spent")


@define_tool(
    "budget_set",
    "Change a campaign's dollar budget before it runs into it (must stay above what is already spent).",
    SetInput,
    category="budget",
    scope="research",
    read_only=False,
    idempotent=True,
)
async def budget_set(ctx: ToolContext, args: SetInput) -> dict[str, Any]:
    campaign = await ctx.services.jobs.set_budget(args.campaign_id, args.budget)
    return {"campaign_id": campaign.id, "budget": campaign.budget, "spent": round(campaign.cost, 6)}


class EstimateInput(Strict):
    question: str = Field(min_length=3, max_length=2000, description="The research question to price")
    max_sub_questions: int = Field(5, ge=1, le=12)


@define_tool(
    "cost_estimate",
    "Estimate what a research campaign on a question would cost with the configured provider and model, "
    "step by step, before starting it.",
    EstimateInput,
    category="budget",
    scope="read",
    read_only=True,
)
async def cost_estimate(ctx: ToolContext, args: EstimateInput) -> dict[str, Any]:
    return ctx.services.campaigns.estimate(args.question, args.max_sub_questions)


class ReportInput(Strict):
    campaign_id: str | None = Field(
        None, min_length=2, max_length=64, pattern=r"^[A-Za-z0-9_-]+$", description="One campaign, or all if omitted"
    )


@define_tool(
    "cost_report",
    "Report money spent: per step (tokens, model, dollars) for one campaign, or totals across all campaigns.",
    ReportInput,
    category="budget",
    scope="read",
    read_only=True,
)
async def cost_report(ctx: ToolContext, args: ReportInput) -> dict[str, Any]:
    store = ctx.services.store
    if args.campaign_id is not None:
        campaign = await store.get(args.campaign_id)
        return {
            "campaign_id": campaign.id,
            "total": round(campaign.cost, 6),
            "budget": campaign.budget,
            "steps": [r.model_dump(mode="json") for r in campaign.research.step_records],
        }
    campaigns, total = await store.list(limit=1000, visible_to=visible_to(ctx.principal))
    by_provider: dict[str, float] = {}
    for c in campaigns:
        by_provider[c.provider] = round(by_provider.get(c.provider, 0.0) + c.cost, 6)
    return {
        "campaigns": total,
        "total": round(sum(c.cost for c in campaigns), 6),
        "by_provider": by_provider,
        "top": [
            {"campaign_id": c.id, "question": c.question, "cost": round(c.cost, 6)}
            for c in sorted(campaigns, key=lambda c: -c.cost)[:10]
        ],
    }


class PricingInput(Strict):
    model: str | None = Field(None, min_length=1, max_length=200, description="A model name; default: configured")


@define_tool(
    "cost_pricing",
    "Show dollars per million input and output tokens for the configured model (or another), including "
    "configured overrides, so budgets can be set sensibly.",
    PricingInput,
    category="budget",
    scope="read",
    read_only=True,
)
async def cost_pricing(ctx: ToolContext, args: PricingInput) -> dict[str, Any]:
    model = args.model or ctx.services.engines.model_name()
    price = ctx.services.engines.pricing().price(model)
    return {
        "provider": ctx.services.settings.provider,
        "model": model,
        "input_per_mtok": price.input_per_mtok,
        "output_per_mtok": price.output_per_mtok,
        "known": price.known,
        "note": None if price.known else "unknown model: costs count as 0; set DEEPR_PRICE_*_PER_MTOK",
    }


TOOLS = [budget_decide, budget_get, budget_set, cost_estimate, cost_report, cost_pricing]
