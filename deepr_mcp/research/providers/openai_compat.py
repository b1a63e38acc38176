"""Any OpenAI-compatible chat-completions endpoint: OpenAI, OpenRouter, xAI, Ollama, vLLM."""

from __future__ import annotations

from typing import Any

import aiohttp

from deepr_mcp.errors import ProviderError
from deepr_mcp.research.providers.base import Completion, Message, Usage
from deepr_mcp.research.providers.chat import ChatResearch
from deepr_mcp.research.providers.http import HttpJson


def _estimate(text: str) -> int:
    return max(1, len(text) // 4)


class OpenAIProvider(ChatResearch):
    name = "openai"

    def __init__(
        self,
        session: aiohttp.ClientSession,
        *,
        base_url: str,
        api_key: str | None,
        model: str,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        backoff_base_s: float = 0.5,
        stream: bool = False,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.stream = stream
        self._http = HttpJson(
            "openai",
            session,
            timeout_s=timeout_s,
            max_retries=max_retries,
            backoff_base_s=backoff_base_s,
            key_env="DEEPR_OPENAI_API_KEY",
        )

    async def complete(
        self, messages: list[Message], *, max_tokens: int = 1024, temperature: float = 0.0
    ) -> Completion:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if self.stream:
            return await self._complete_streaming(payload, messages)
        body = await self._http.post(self.url, payload, self._headers)
        try:
            text = body["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise ProviderError("openai", "malformed response: no choices[0].message.content") from None
        usage = body.get("usage") or {}
        return Completion(
            text=text,
            usage=Usage(int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))),
            model=str(body.get("model") or self.model),
            provider=self.name,
        )

    async def _complete_streaming(self, payload: dict[str, Any], messages: list[Message]) -> Completion:
        payload = {**payload, "stream": True, "stream_options": {"include_usage": True}}
        parts: list[str] = []
        usage: Usage | None = None
        async for event in self._http.stream(self.url, payload, self._headers):
            for choice in event.get("choices") or []:
                delta = (choice or {}).get("delta") or {}
                if isinstance(delta.get("content"), str):
                    parts.append(delta["content"])
            if isinstance(event.get("usage"), dict):
                u = event["usage"]
                usage = Usage(int(u.get("prompt_tokens", 0)), int(u.get("completion_tokens", 0)))
        text = "".join(parts)
        if usage is None:  # servers that do not report usage when streaming: estimate, never zero
            usage = Usage(sum(_estimate(m.content) for m in messages), _estimate(text))
        return Completion(text=text, usage=usage, model=self.model, provider=self.name)
