"""Prompts a person can pick in Claude Desktop or Claude Code: each tells the model which gateway
calls carry the job, so it works in clients that see only tool_search and tool_call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from deepr_mcp.errors import InvalidInput
from deepr_mcp.jobs.request import campaign_request

FOLLOW = (
    "Follow it with tool_call(name='campaign_wait', arguments={{'campaign_id': ID, 'since': VERSION}}), "
    "passing back the version each answer returns, until its 'next' is no longer campaign_wait. "
    "Do not poll campaign_status. If an answer says decision_pending, show me the estimated and allowed cost "
    "and ask me: approve a new budget, optimize for cost, or abort; then make the exact budget_decide call "
    "it suggests with my answer. "
)


def campaign_arguments(values: dict[str, str]) -> None:
    """The research prompt's question and budget, checked by campaign_start's own input model."""
    try:
        campaign_request({"question": values["question"], "budget": values.get("budget") or None})
    except InvalidInput as exc:
        raise MCPError(code=INVALID_PARAMS, message=exc.message) from None


@dataclass(frozen=True)
class PromptSpec:
    name: str
    title: str
    description: str
    arguments: tuple[tuple[str, str, bool], ...]
    template: str
    check: Callable[[dict[str, str]], None] | None = None
    """Refuses argument values the call the prompt leads to would refuse (the same message)."""

    def render(self, args: dict[str, str]) -> str:
        missing = [a for a, _, required in self.arguments if required and not (args.get(a) or "").strip()]
        if missing:
            raise MCPError(code=INVALID_PARAMS, message=f"prompt {self.name} needs {', '.join(missing)}")
        unknown = sorted(set(args) - {a for a, _, _ in self.arguments})
        if unknown:
            allowed = ", ".join(a for a, _, _ in self.arguments)
            raise MCPError(code=INVALID_PARAMS, message=f"unknown argument(s) {', '.join(unknown)}; allowed: {allowed}")
        values = {a: (args.get(a) or "").strip() for a, _, _ in self.arguments}
        if self.check is not None:
            self.check(values)
        return self.template.format(**values)


PROMPTS = {
    p.name: p
    for p in [
        PromptSpec(
            "research",
            "Research a question",
            "Start a cited research campaign and follow it to the report without polling.",
            (("question", "What to research", True), ("budget", "Dollar limit, e.g. 1.00 (optional)", False)),
            "Research this question with deepr-mcp: {question}\n\n"
            "Call tool_call(name='campaign_start', arguments={{'question': <the question>, 'budget': <budget if "
            "given: {budget}>}}). If it answers that the corpus is empty, tell me and ask whether to add my documents "
            "(tool_call(name='corpus_add', arguments={{'path': ...}})) or the bundled sample (arguments={{'sample': "
            "true}}); add nothing I did not ask for. "
            + FOLLOW
            + "When it is complete, read tool_call(name='campaign_report') and "
            "give me a summary with its numbered citations, then list the gaps it reports.",
            check=campaign_arguments,
        ),
        PromptSpec(
            "follow_campaign",
            "Follow a campaign",
            "Report a running campaign's progress as it changes and its report when done.",
            (("campaign_id", "The campaign id", True),),
            "Follow deepr-mcp campaign {campaign_id}. " + FOLLOW + "Tell me briefly about each phase change; "
            "when it finishes, summarise its report with citations.",
        ),
        PromptSpec(
            "decide_budget",
            "Decide a budget question",
            "Show a campaign's pending budget question and settle it with my answer.",
            (("campaign_id", "The campaign id", True),),
            "Campaign {campaign_id} may be waiting for a budget decision. Call tool_call(name='budget_get', "
            "arguments={{'campaign_id': '{campaign_id}'}}), show me what was spent, the budget and the estimate, and "
            "ask me to approve a new budget, optimize for cost, or abort. Then call budget_decide with my answer.",
        ),
        PromptSpec(
            "expert_brief",
            "Brief from an expert",
            "A cited briefing from an expert's accumulated knowledge, with its gaps.",
            (("expert_id", "The expert id", True), ("topic", "What to focus on (optional)", False)),
            "Give me a briefing from deepr-mcp expert {expert_id}, focused on: {topic}. Call tool_call(name="
            "'expert_profile') and tool_call(name='expert_query') with the focus as question; keep the numbered "
            "citations, and end with its open gaps from expert_gaps, offering to run expert_fill_gaps.",
        ),
    ]
}


class PromptHandlers:
    """``prompts/list`` and ``prompts/get`` from the static ``PROMPTS`` table (no services needed)."""

    def server_kwargs(self) -> dict[str, Any]:
        """The ``on_*`` keyword arguments for the lowlevel ``Server``."""
        return {"on_list_prompts": self.list_prompts, "on_get_prompt": self.get_prompt}

    async def list_prompts(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=p.name,
                    title=p.title,
                    description=p.description,
                    arguments=[types.PromptArgument(name=a, description=d, required=r) for a, d, r in p.arguments],
                )
                for p in PROMPTS.values()
            ]
        )

    async def get_prompt(self, ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        spec = PROMPTS.get(params.name)
        if spec is None:
            raise MCPError(
                code=INVALID_PARAMS, message=f"unknown prompt {params.name!r}; prompts: {', '.join(PROMPTS)}"
            )
        text = spec.render(dict(params.arguments or {}))
        return types.GetPromptResult(
            description=spec.description,
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
        )
