"""The connected client's own model, asked over MCP sampling (``sampling/createMessage``).

An agent calling this server is a language model, and a user who set no API key still has one:
the client's. This provider renders the engine's typed request to the same messages the HTTP
providers send and puts them to the client as a sampling request; the answer is parsed like any
chat model's, and the engine checks every claim against the passages as it does for every provider.

No client may be able to answer: the campaign's starter is gone, it declared no sampling, a
2026-07-28 client (that era deprecates sampling and servers may not send it requests), or its user
refused. Then the request goes to the fallback (the extractive local provider), so a campaign always
finishes; the step records say which provider and model wrote each step.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import mcp_types as types

from deepr_mcp.research.providers import prompts
from deepr_mcp.research.providers.base import Completion, Provider, Request, Usage

Sampler = Callable[[types.CreateMessageRequest], Awaitable[types.CreateMessageResult | None]]
"""Puts a sampling request to whichever client can take it; ``None`` when none could."""

CHARS_PER_TOKEN_CAP = 16
"""An answer longer than ``max_tokens`` times this is cut: a token is about four characters, and a client
that ignores ``maxTokens`` must not hand the claim checker megabytes."""

PREFERENCES = types.ModelPreferences(intelligence_priority=0.8, speed_priority=0.3, cost_priority=0.3)
"""Advisory: the answer is checked passage by passage, so a careful model is worth its time."""


def sampling_request(request: Request, *, max_tokens: int) -> types.CreateMessageRequest:
    """The typed request as a sampling request: the system prompt apart, the rest as user turns."""
    messages = prompts.messages_for(request)
    system = "\n\n".join(m.content for m in messages if m.role == "system") or None
    turns = [
        types.SamplingMessage(role=m.role, content=types.TextContent(type="text", text=m.content))
        for m in messages
        if m.role != "system"
    ]
    return types.CreateMessageRequest(
        params=types.CreateMessageRequestParams(
            messages=turns,
            system_prompt=system,
            include_context="none",
            temperature=0.0,
            max_tokens=max_tokens,
            model_preferences=PREFERENCES,
        )
    )


def text_of(result: types.CreateMessageResult) -> str | None:
    """The answer's text; ``None`` for an image or audio answer, which no research step can use."""
    content = result.content
    return content.text if isinstance(content, types.TextContent) else None


class SamplingProvider:
    """Implements ``Provider`` through the client's model, falling back request by request."""

    name = "client"
    model = "client-model"

    def __init__(self, sampler: Sampler, fallback: Provider) -> None:
        self.sampler = sampler
        self.fallback = fallback

    async def research(self, request: Request, *, max_tokens: int = 1024) -> Completion:
        result = await self.sampler(sampling_request(request, max_tokens=max_tokens))
        text = text_of(result) if result is not None else None
        if result is None or text is None:
            return await self.fallback.research(request, max_tokens=max_tokens)
        # Sampling reports no token counts, and the client's user pays for its model: no cost here.
        text = text[: max_tokens * CHARS_PER_TOKEN_CAP]
        return Completion(text=text, usage=Usage(), model=result.model or self.model, provider=self.name)
