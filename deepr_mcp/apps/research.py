"""The pinned ``research`` tool that carries the dashboard, and the app-only helpers the view calls.

Claude Desktop keeps only the first ``tools/list`` it reads, so the tool whose ``_meta.ui.resourceUri``
opens the dashboard must be in it: ``research`` is listed there (beside ``tool_search``/``tool_call``)
to clients that announce MCP Apps. The view then calls catalogue tools by their own names through the
host (``campaign_wait``, ``budget_decide``, ``corpus_passage``...); those are listed too, marked
``visibility: ["app"]`` so the host hides them from the model. Clients without MCP Apps see none of
this: their list and every tool's answer stay as they were.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from deepr_mcp.apps.view import UI_URI, supports_apps
from deepr_mcp.gateway.gateway import Gateway, describe_validation_error
from deepr_mcp.gateway.outcome import ToolOutcome, to_outcome
from deepr_mcp.gateway.spec import ToolSpec, clean_schema
from deepr_mcp.jobs.request import QUERIES_HELP

__all__ = ["APP_HELPERS", "RESEARCH_SPEC", "CampaignApp", "ResearchInput"]

APP_HELPERS = (
    "campaign_status",
    "campaign_plan",
    "campaign_wait",
    "campaign_sources",
    "campaign_report",
    "campaign_pause",
    "campaign_resume",
    "campaign_cancel",
    "budget_decide",
    "corpus_passage",
)
"""The catalogue tools the dashboard calls; listed app-only to MCP Apps clients."""


class ResearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str | None = Field(
        None, min_length=3, max_length=2000, description="Start a campaign researching this question"
    )
    campaign_id: str | None = Field(
        None, min_length=2, max_length=64, pattern=r"^[A-Za-z0-9_-]+$", description="Or open this campaign"
    )
    budget: float | None = Field(None, gt=0, le=10_000, description="Dollar limit for a new campaign")
    max_sub_questions: int = Field(5, ge=1, le=12, description="Sub-questions to plan for a new campaign")
    queries: list[Annotated[str, Field(min_length=2, max_length=300)]] = Field(
        default_factory=list, max_length=8, description=QUERIES_HELP
    )


RESEARCH_SPEC = ToolSpec(
    name="research",
    description="Start a research campaign on a question (or open one by campaign_id) and show the user its "
    "live dashboard: progress, cost against budget, budget questions and the cited report. Returns the "
    "campaign id at once; the research runs in the background. Give queries: the documentation's likely "
    "words for what the user asks, searched beside the question.",
    input_schema=clean_schema(ResearchInput.model_json_schema()),
    category="campaign",
    input_model=ResearchInput,
    scope="read",
    meta={"ui": {"resourceUri": UI_URI}, "ui/resourceUri": UI_URI},
)


def app_only(spec: ToolSpec) -> ToolSpec:
    """A copy of a catalogue tool the host lets the view call but does not show the model."""
    return dataclasses.replace(spec, meta={**(spec.meta or {}), "ui": {"visibility": ["app"]}})


class CampaignApp:
    """What MCP Apps adds to ``tools/list`` and how ``research`` runs (through the gateway's checks)."""

    def __init__(self, gateway: Gateway, enabled: bool) -> None:
        self.gateway = gateway
        self.enabled = enabled

    def handles(self, name: str) -> bool:
        return self.enabled and name == RESEARCH_SPEC.name

    def tools(self, capabilities: Any, listed: Iterable[str]) -> list[ToolSpec]:
        """``research`` and the app-only helpers not already listed, for a client that renders apps."""
        if not self.enabled or not supports_apps(capabilities):
            return []
        shown = set(listed)
        helpers = [self.gateway.registry.get(name) for name in APP_HELPERS if name not in shown]
        return [RESEARCH_SPEC, *(app_only(spec) for spec in helpers if spec is not None)]

    async def research(self, ctx: Any, arguments: dict[str, Any] | None) -> ToolOutcome:
        """Start (``question``) or open (``campaign_id``) a campaign; scopes are checked per inner tool."""
        try:
            args = ResearchInput.model_validate(arguments or {})
        except ValidationError as exc:
            return ToolOutcome.error(describe_validation_error("research", exc), inputSchema=RESEARCH_SPEC.input_schema)
        if (args.question is None) == (args.campaign_id is None):
            return ToolOutcome.error(
                "research takes either question (to start a campaign) or campaign_id (to open one), not "
                + ("both" if args.question else "neither")
            )
        if args.question is not None:
            start: dict[str, Any] = {"question": args.question, "max_sub_questions": args.max_sub_questions}
            if args.queries:
                start["queries"] = args.queries
            if args.budget is not None:
                start["budget"] = args.budget
            started = await self.gateway.invoke(ctx, "campaign_start", start)
            if started.is_error or started.structured is None:
                return started
            return to_outcome({**started.structured, "question": args.question, "view": UI_URI})
        status = await self.gateway.invoke(ctx, "campaign_status", {"campaign_id": args.campaign_id})
        if status.is_error or status.structured is None:
            return status
        plan = await self.gateway.invoke(ctx, "campaign_plan", {"campaign_id": args.campaign_id})
        question = (plan.structured or {}).get("question")
        return to_outcome(
            {"campaign_id": args.campaign_id, "question": question, "status": status.structured, "view": UI_URI}
        )
