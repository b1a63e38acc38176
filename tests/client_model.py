"""A client whose model answers sampling requests: it forwards each one to an LLM API on loopback
(``tests.fake_llm``, Anthropic's shape) the way a real client calls its own model, and remembers
what it was asked."""

from __future__ import annotations

from typing import Any

import aiohttp
import mcp_types as types


class ClientModel:
    """An SDK ``sampling_callback``: POSTs ``/v1/messages`` to ``base_url`` and answers with its text."""

    def __init__(self, base_url: str, *, model: str = "client-test-model") -> None:
        self.base_url = base_url
        self.model = model
        self.asked: list[types.CreateMessageRequestParams] = []

    async def __call__(self, context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        self.asked.append(params)
        turns = [{"role": m.role, "content": m.content.text} for m in params.messages]  # type: ignore[union-attr]
        body = {"model": self.model, "system": params.system_prompt, "messages": turns, "max_tokens": params.max_tokens}
        async with aiohttp.ClientSession() as session:
            async with session.post(f"{self.base_url}/v1/messages", json=body) as response:
                answer = await response.json()
        text = "".join(block["text"] for block in answer["content"] if block["type"] == "text")
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=text), model=answer["model"]
        )


class Refuses:
    """A client whose user declines every sampling request (the SDK returns it as a JSON-RPC error)."""

    def __init__(self) -> None:
        self.asked = 0

    async def __call__(self, context: Any, params: types.CreateMessageRequestParams) -> types.ErrorData:
        self.asked += 1
        return types.ErrorData(code=-1, message="User rejected sampling request")


class DrawsPictures:
    """A client whose model answers with an image, which no research step can use."""

    def __init__(self) -> None:
        self.asked = 0

    async def __call__(self, context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        self.asked += 1
        return types.CreateMessageResult(
            role="assistant",
            content=types.ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png"),
            model="painter",
        )
