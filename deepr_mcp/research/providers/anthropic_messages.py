"""Anthropic's Messages API over the shared aiohttp session."""

from __future__ import annotations

from typing import Any

import aiohttp

from deepr_mcp.errors import ProviderError
from deepr_mcp.research.providers.base import Completion, Message, Usage
from deepr_mcp.research.providers.chat import ChatResearch
from deepr_mcp.research.providers.http import HttpJson

API_VERSION = "2023-06-01"


class AnthropicProvider(ChatResearch):
    name = "anthropic"

    def __init__(
        self,
        session: aiohttp.ClientSession,
        *,
        api_key: str,
        model: str,
        base_url: str = "https://api.anthropic.com",
        timeout_s: float = 60.0,
        max_retries: int = 3,
        backoff_base_s: float = 0.5,
        stream: bool = False,
    ) -> None:
        self.url = base_url.rstrip("/") + "/v1/messages"
        self.model = model
        self.stream = stream
        self._headers = {"x-api-key": api_key, "anthropic-version": API_VERSION}
        self._http = HttpJson(
            "anthropic",
            session,
            timeout_s=timeout_s,
            max_retries=max_retries,
            backoff_base_s=backoff_base_s,
            key_env="DEEPR_ANTHROPIC_API_KEY",
        )

    async def complete(
        self, messages: list[Message], *, max_tokens: int = 1024, temperature: float = 0.0
    ) -> Completion:
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        payload: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "messages": [{"role": m.role, "content": m.content} for m in messages if m.role != "system"],
        }
        if system:
            payload["system"] = system
        if self.stream:
            return await self._complete_streaming(payload)
        body = await self._http.post(self.url, payload, self._headers)
        content = body.get("content")
        if not isinstance(content, list):
            raise ProviderError("anthropic", "malformed response: no content list")
        text = "".join(
            block.get("text", "") for block in content if isinstance(block, dict) and block.get("type") == "text"
        )
        usage = body.get("usage") or {}
        return Completion(
            text=text,
            usage=Usage(int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))),
            model=str(body.get("model") or self.model),
            provider=self.name,
        )

    async def _complete_streaming(self, payload: dict[str, Any]) -> Completion:
        parts: list[str] = []
        input_tokens = output_tokens = 0
        async for event in self._http.stream(self.url, {**payload, "stream": True}, self._headers):
            kind = event.get("type")
            if kind == "message_start":
                usage = (event.get("message") or {}).get("usage") or {}
                input_tokens = int(usage.get("input_tokens", 0))
                output_tokens = int(usage.get("output_tokens", 0))
            elif kind == "content_block_delta":
                delta = event.get("delta") or {}
                if delta.get("type") == "text_delta":
                    parts.append(str(delta.get("text", "")))
            elif kind == "message_delta":
                output_tokens = int((event.get("usage") or {}).get("output_tokens", output_tokens))
            elif kind == "error":
                raise ProviderError(
                    "anthropic", f"stream error: {(event.get('error') or {}).get('message', 'unknown')}"
                )
        return Completion(
            text="".join(parts), usage=Usage(input_tokens, output_tokens), model=self.model, provider=self.name
        )
