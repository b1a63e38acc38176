"""A fake LLM server: a small real HTTP server on 127.0.0.1 speaking the OpenAI and Anthropic shapes.

Each test scripts what the next requests get (status, body, delay); unscripted requests are
answered by running the extractive local provider on the prompt, so a whole campaign can run
against it and produce a real report with real token counts.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from deepr_mcp.research.providers.base import Message
from deepr_mcp.research.providers.local import LocalProvider
from tests.servers import loopback_app


@dataclass
class Scripted:
    status: int = 200
    body: Any = None  # dict -> JSON; bytes/str -> raw
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeLLM:
    url: str = ""
    script: list[Scripted] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers_seen: list[dict[str, str]] = field(default_factory=list)


async def _answer(messages: list[dict[str, Any]], system: str | None) -> tuple[str, int, int]:
    msgs = ([Message("system", system)] if system else []) + [Message(m["role"], m["content"]) for m in messages]
    completion = await LocalProvider().complete(msgs)
    return completion.text, completion.usage.input_tokens, completion.usage.output_tokens


@asynccontextmanager
async def fake_llm() -> AsyncIterator[FakeLLM]:
    state = FakeLLM()

    async def scripted_or_none(request: web.Request) -> web.StreamResponse | None:
        body = await request.json()
        state.requests.append(body)
        state.headers_seen.append(dict(request.headers))
        if not state.script:
            return None
        step = state.script.pop(0)
        if step.delay_s:
            await asyncio.sleep(step.delay_s)
        if isinstance(step.body, dict):
            return web.json_response(step.body, status=step.status, headers=step.headers)
        return web.Response(body=step.body or b"", status=step.status, headers=step.headers)

    async def openai(request: web.Request) -> web.StreamResponse:
        if (scripted := await scripted_or_none(request)) is not None:
            return scripted
        body = state.requests[-1]
        text, tokens_in, tokens_out = await _answer(body["messages"], None)
        if body.get("stream"):
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await resp.prepare(request)
            for piece in (text[: len(text) // 2], text[len(text) // 2 :]):
                await resp.write(f"data: {json.dumps({'choices': [{'delta': {'content': piece}}]})}\n\n".encode())
            usage = {"prompt_tokens": tokens_in, "completion_tokens": tokens_out}
            await resp.write(f"data: {json.dumps({'choices': [], 'usage': usage})}\n\ndata: [DONE]\n\n".encode())
            return resp
        return web.json_response(
            {
                "model": body["model"],
                "choices": [{"message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out},
            }
        )

    async def anthropic(request: web.Request) -> web.StreamResponse:
        if (scripted := await scripted_or_none(request)) is not None:
            return scripted
        body = state.requests[-1]
        text, tokens_in, tokens_out = await _answer(body["messages"], body.get("system"))
        if body.get("stream"):
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await resp.prepare(request)
            events = [
                {"type": "message_start", "message": {"usage": {"input_tokens": tokens_in, "output_tokens": 1}}},
                {"type": "content_block_delta", "delta": {"type": "text_delta", "text": text}},
                {"type": "message_delta", "usage": {"output_tokens": tokens_out}},
            ]
            for event in events:
                await resp.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
            return resp
        return web.json_response(
            {
                "model": body["model"],
                "content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
            }
        )

    app = web.Application()
    app.router.add_post("/v1/chat/completions", openai)
    app.router.add_post("/v1/messages", anthropic)
    async with loopback_app(app) as state.url:
        yield state
