"""A fake LLM server: a small real HTTP server on 127.0.0.1 speaking the OpenAI and Anthropic shapes.

Each test scripts what the next requests get (status, body, delay); unscripted requests are
answered by ``reading_model``, a crude stand-in for a chat model, so a whole campaign can run
against it and produce a real report.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from deepr_mcp.research.providers.base import Message
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


_PROMPT_PASSAGE = re.compile(r"^\[(\d+)\] \(from: [^\n]*\)\n(.*?)(?=^\[\d+\] \(from:|\Z)", re.S | re.M)


def reading_model(messages: list[Message]) -> str:
    """A stand-in for a chat model, reading the rendered prompt as one would: the plan is the
    question itself, the findings quote each passage's first sentence with its number, the answer
    strings the findings together. Crude on purpose: the engine's checks decide what is kept."""
    system = next((m.content for m in messages if m.role == "system"), "")
    user = next((m.content for m in messages if m.role == "user"), "")
    if system.startswith("TASK: plan"):
        return user.split("\n", 1)[0]
    if system.startswith("TASK: findings"):
        lines = []
        for number, text in _PROMPT_PASSAGE.findall(user.partition("\n\nPassages:\n")[2]):
            first = re.split(r"(?<=[.!?])\s+", " ".join(text.split()), maxsplit=1)[0]
            lines.append(f"- {first} [{number}]")
        return "\n".join(lines) or "NO EVIDENCE"
    findings = [line[2:] for line in user.partition("\n\nFindings:\n")[2].splitlines() if line.startswith("- ")]
    return " ".join(findings[:3]) or "The corpus holds no evidence that answers this question."


async def _answer(messages: list[dict[str, Any]], system: str | None) -> tuple[str, int, int]:
    msgs = ([Message("system", system)] if system else []) + [Message(m["role"], m["content"]) for m in messages]
    text = reading_model(msgs)
    return text, sum(len(m.content) // 4 + 1 for m in msgs), len(text) // 4 + 1


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
