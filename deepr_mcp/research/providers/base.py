"""The one seam every model provider sits behind.

The engine only ever calls ``complete``; whether the text came from the extractive local
provider, an OpenAI-compatible endpoint or the Anthropic API is invisible to it, and the
``Usage`` it returns is what the pricing table turns into dollars.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    provider: str = ""


@runtime_checkable
class Provider(Protocol):
    """A chat model. ``name`` is the provider id (``local``, ``openai``, ``anthropic``)."""

    name: str
    model: str

    async def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 1024,
        temperature: float = 0.0,
    ) -> Completion: ...
