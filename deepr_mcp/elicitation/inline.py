"""The 2026-07-28 channel: the next tools/call touching a campaign with an open budget question
returns ``InputRequiredResult``; the client's retry carries the answer.

2026-07-28 servers may not send requests to clients, so the question rides the client's own
call. ``request_state`` names the question (and the attempt), so an answer to a question that
was settled meanwhile is recognised and refused.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import mcp_types as types

from deepr_mcp.elicitation import form
from deepr_mcp.errors import Conflict, Forbidden, InvalidInput, NotFound
from deepr_mcp.jobs.models import Campaign, DecisionName

ReadCampaign = Callable[[str], Awaitable[Campaign]]


class RecordDecision(Protocol):
    async def __call__(
        self,
        campaign_id: str,
        decision: DecisionName,
        *,
        new_budget: float | None,
        channel: str,
        answered_by: str,
        principal: str | None = None,
    ) -> Any: ...


INPUT_KEY = "budget"


def campaign_id_of(name: str, arguments: dict[str, Any] | None) -> str | None:
    arguments = arguments or {}
    if name == "tool_call":
        name, arguments = str(arguments.get("name")), arguments.get("arguments") or {}
    if name == "budget_decide" or not isinstance(arguments, dict):
        return None  # budget_decide answers the question itself
    value = arguments.get("campaign_id")
    return value if isinstance(value, str) else None


def can_answer(capabilities: types.ClientCapabilities | None) -> bool:
    """Whether the client declared form elicitation (``elicitation: {}`` means form, by the spec's
    back-compatibility rule). A server must not put an ``elicitation/create`` input request to a
    client that did not: its question then waits for ``budget_decide`` or the timeout's default."""
    asks = capabilities.elicitation if capabilities is not None else None
    return asks is not None and (asks.form is not None or asks.url is None)


def _tag(principal: str) -> str:
    """Binds a question's ``request_state`` to the principal it was put to."""
    return hashlib.sha256(principal.encode()).hexdigest()[:16]


async def input_required(
    read: ReadCampaign, record: RecordDecision, params: types.CallToolRequestParams, *, principal: str = "local"
) -> types.InputRequiredResult | None:
    """``None`` when the call may proceed; otherwise the question to put to the client.

    ``read`` gets a campaign by id if ``principal`` may answer its budget question (else raises
    ``Forbidden``/``NotFound``: the call proceeds and the tool reports what is missing);
    ``record`` applies an answer (the job manager's ``decide``). An answer counts only from the
    principal the question was put to: ``request_state`` carries a tag of its name.
    """
    campaign_id = campaign_id_of(params.name, params.arguments)
    if campaign_id is None:
        return None
    try:
        campaign = await read(campaign_id)
    except (NotFound, InvalidInput, Forbidden):
        return None  # the tool itself reports the unknown id, or what the caller lacks
    q = campaign.open_question
    if q is None:
        return None
    parts = (params.request_state or "").split("#")
    response = (params.input_responses or {}).get(INPUT_KEY)
    problem = None
    tag = _tag(principal)
    if len(parts) == 3 and parts[0] == q.id and parts[2] == tag and isinstance(response, types.ElicitResult):
        attempt = int(parts[1]) if parts[1].isdigit() else 1
        if response.action != "accept":
            answer: form.Answer | str = form.Answer("abort")
        else:
            answer = form.validate(response.content, q)
            if isinstance(answer, str) and attempt >= 2:
                answer = form.Answer("abort")  # asked again once, still invalid: a decline
        if isinstance(answer, form.Answer):
            try:
                await record(
                    campaign.id,
                    answer.decision,
                    new_budget=answer.new_budget,
                    channel="input_required",
                    answered_by="2026-07-28 client retry",
                    principal=principal,
                )
            except Conflict:
                pass  # settled on another channel meanwhile; the call goes on
            return None
        problem, state = answer, f"{q.id}#{attempt + 1}#{tag}"
    else:
        state = f"{q.id}#1#{tag}"
    request = types.ElicitRequest(
        params=types.ElicitRequestFormParams(
            message=form.message(campaign.id, campaign.question, q, problem), requested_schema=form.schema(q)
        )
    )
    return types.InputRequiredResult(input_requests={INPUT_KEY: request}, request_state=state)
