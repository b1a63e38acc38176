"""What a campaign is asked to do: the one input model of every way into a campaign.

The ``campaign_start`` tool (called plainly or through ``tool_call``), both MCP task flavours, the
``research`` prompt and the ``deepr-mcp research`` command all validate their arguments with this
model and hand it to ``Campaigns.start``, so each refuses the same input with the same message and
a record is only ever made from checked values. Numbers are finite and bounded; unknown arguments
are refused. A new field added here reaches every way in (and the tool's ``inputSchema``) at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from deepr_mcp.errors import InvalidInput, describe_validation_error

MAX_BUDGET = 10_000
"""The largest dollar budget a campaign may be given (an approve_override may raise it later)."""

MAX_SUB_QUESTIONS = 12

QUERIES_HELP = (
    "Optional, up to 8: other phrasings of the question in the words the documentation itself likely uses "
    "(technical terms, API or option names, the docs' name for the concept); each is searched beside the question"
)


class CampaignRequest(BaseModel):
    # No docstring: it would become the inputSchema's description, repeated in every tool_search hit.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    question: str = Field(min_length=3, max_length=2000, description="What to research, as a question")
    budget: float | None = Field(None, gt=0, le=MAX_BUDGET, description="Dollar limit; asks before exceeding it")
    max_sub_questions: int = Field(
        5, ge=1, le=MAX_SUB_QUESTIONS, strict=True, description="How many sub-questions to plan"
    )
    queries: list[Annotated[str, Field(min_length=2, max_length=300)]] = Field(
        default_factory=list, max_length=8, description=QUERIES_HELP
    )

    @field_validator("question")
    @classmethod
    def _has_words(cls, value: str) -> str:
        if len(" ".join(value.split())) < 3:
            raise ValueError("needs at least 3 characters besides spaces; ask a question")
        return value


def campaign_request(values: Mapping[str, Any]) -> CampaignRequest:
    """``values`` as a ``CampaignRequest``, or ``InvalidInput`` worded as ``campaign_start`` refuses them."""
    try:
        return CampaignRequest.model_validate(dict(values))
    except ValidationError as exc:
        raise InvalidInput(describe_validation_error("campaign_start", exc)) from None
