"""What a chat model does with the engine's typed request: render it to a prompt and send it.

The LLM providers only know ``complete(messages)``; this mixin gives them ``research(request)``
by rendering the request with ``prompts.messages_for``. The rendering lives on the provider's
side of the seam, so the engine never builds a prompt for a provider that reads data.
"""

from __future__ import annotations

from typing import Protocol

from deepr_mcp.research.providers import prompts
from deepr_mcp.research.providers.base import Completion, Message, Request


class _Chat(Protocol):
    async def complete(
        self, messages: list[Message], *, max_tokens: int = 1024, temperature: float = 0.0
    ) -> Completion: ...


class ChatResearch:
    """Mixin for chat providers: ``research`` = render the request, then ``complete`` it."""

    async def research(self: _Chat, request: Request, *, max_tokens: int = 1024) -> Completion:
        return await self.complete(prompts.messages_for(request), max_tokens=max_tokens)
