"""Every way into a campaign refuses the same bad arguments with the same message, and keeps serving.

A plain ``campaign_start`` call, the gateway's ``tool_call``, a 2025-11-25 task-augmented call (the
``task`` param) and a 2026-07-28 tasks-extension call go through one input model. The arguments are
sent as raw JSON text, so numbers no Python float holds (``1e400``) and the non-standard ``NaN`` and
``Infinity`` tokens a hostile client can write reach the server as written.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import anyio
import pytest

from tests.campaigns import QUESTION
from tests.clients import EXTENSION, HANDSHAKE_VERSION, JSON_ACCEPT, MODERN_VERSION
from tests.servers import http_server

ENDED = ("complete", "failed", "cancelled")
PATHS = ("plain", "tool_call", "task-2025-11-25", "task-extension")

BAD = [
    # (raw arguments beside the question, the argument the refusal must name)
    ('"budget": 1e400', "budget"),
    ('"budget": NaN', "budget"),
    ('"budget": Infinity', "budget"),
    ('"budget": -Infinity', "budget"),
    ('"budget": 1e12', "budget"),
    ('"budget": "abc"', "budget"),
    ('"colour": "red"', "colour"),
    ('"max_sub_questions": 13', "max_sub_questions"),
    ('"max_sub_questions": 0', "max_sub_questions"),
    ('"max_sub_questions": 2.5', "max_sub_questions"),
]


class Wire:
    """Raw JSON-RPC over streamable HTTP: a 2025-11-25 session, and stateless 2026-07-28 requests."""

    def __init__(self, http: aiohttp.ClientSession, url: str) -> None:
        self.http, self.url, self.next_id, self.session_headers = http, url, 0, dict(JSON_ACCEPT)

    async def post(self, body: str, headers: dict[str, str]) -> dict[str, Any]:
        async with self.http.post(self.url, data=body, headers=headers) as resp:
            text = await resp.text()
            if "mcp-session-id" in resp.headers:
                self.session_headers["mcp-session-id"] = resp.headers["mcp-session-id"]
        for line in text.splitlines():
            if line.startswith("data:"):
                return json.loads(line[5:])
        return json.loads(text)

    def body(self, method: str, params_text: str) -> str:
        self.next_id += 1
        return f'{{"jsonrpc": "2.0", "id": {self.next_id}, "method": "{method}", "params": {params_text}}}'

    async def handshake(self) -> None:
        init = {"protocolVersion": HANDSHAKE_VERSION, "capabilities": {}, "clientInfo": {"name": "w", "version": "1"}}
        reply = await self.post(self.body("initialize", json.dumps(init)), self.session_headers)
        assert "result" in reply, reply
        self.session_headers["mcp-protocol-version"] = HANDSHAKE_VERSION
        note = '{"jsonrpc": "2.0", "method": "notifications/initialized"}'
        async with self.http.post(self.url, data=note, headers=self.session_headers) as resp:
            await resp.read()

    async def legacy(self, method: str, params_text: str) -> dict[str, Any]:
        return await self.post(self.body(method, params_text), self.session_headers)

    async def modern(self, method: str, params_text: str, *, name: str | None = None, tasks: bool) -> dict[str, Any]:
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
            "io.modelcontextprotocol/clientInfo": {"name": "w", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}} if tasks else {},
        }
        params_text = params_text[:-1].rstrip() + f', "_meta": {json.dumps(meta)}}}'
        headers = {**JSON_ACCEPT, "mcp-protocol-version": MODERN_VERSION, "mcp-method": method}
        if name is not None:
            headers["mcp-name"] = name
        return await self.post(self.body(method, params_text), headers)

    async def start(self, path: str, arguments: str) -> dict[str, Any]:
        """campaign_start with ``arguments`` (raw JSON text) along ``path``: the whole JSON-RPC reply."""
        if path == "plain":
            return await self.modern("tools/call", f'{{"name": "campaign_start", "arguments": {arguments}}}',
                                     name="campaign_start", tasks=False)  # fmt: skip
        if path == "tool_call":
            params = f'{{"name": "tool_call", "arguments": {{"name": "campaign_start", "arguments": {arguments}}}}}'
            return await self.modern("tools/call", params, name="tool_call", tasks=False)
        if path == "task-2025-11-25":
            return await self.legacy(
                "tools/call", f'{{"name": "campaign_start", "arguments": {arguments}, "task": {{"ttl": 60000}}}}'
            )
        assert path == "task-extension"
        return await self.modern("tools/call", f'{{"name": "campaign_start", "arguments": {arguments}}}',
                                 name="campaign_start", tasks=True)  # fmt: skip


@asynccontextmanager
async def wire(base: str) -> AsyncIterator[Wire]:
    async with aiohttp.ClientSession() as http:
        w = Wire(http, f"{base}/mcp")
        await w.handshake()
        yield w


def refusal(path: str, reply: dict[str, Any]) -> str:
    """The refusal's message: a tool error on the plain paths and the extension, -32602 for a 2025 task."""
    if path == "task-2025-11-25":
        assert "error" in reply, reply
        assert reply["error"]["code"] == -32602, reply
        return reply["error"]["message"]
    result = reply.get("result")
    assert result is not None and result.get("isError") is True, reply
    assert "taskId" not in result and result.get("resultType", "complete") == "complete", result
    return result["content"][0]["text"].removeprefix("Error: ")


async def test_every_way_in_refuses_the_same_bad_arguments_the_same_way(data_dir: Path) -> None:
    async with http_server(data_dir) as base, wire(base) as w:
        for raw, field in [*BAD, ("", "question")]:
            arguments = f'{{"question": "{QUESTION}", {raw}}}' if field != "question" else "{}"
            messages = {path: refusal(path, await w.start(path, arguments)) for path in PATHS}
            assert len(set(messages.values())) == 1, (raw, messages)
            message = messages["plain"]
            assert message.startswith("invalid arguments for campaign_start: ") and field in message, (raw, message)
            assert "Traceback" not in message and "pydantic" not in message, message
        for budget in ("abc", "nan", "1e12", "-1"):  # the research prompt leads to campaign_start: checked alike
            prompt = json.dumps({"name": "research", "arguments": {"question": QUESTION, "budget": budget}})
            error = (await w.legacy("prompts/get", prompt))["error"]
            plain = refusal("plain", await w.start("plain", json.dumps({"question": QUESTION, "budget": budget})))
            assert error["code"] == -32602 and error["message"] == plain, (budget, error, plain)
        listed = await w.modern("tools/call", '{"name": "campaign_list", "arguments": {}}', name="campaign_list",
                                tasks=False)  # fmt: skip
        assert listed["result"]["structuredContent"]["total"] == 0, listed  # nothing half-made
        info = await w.legacy("tools/call", '{"name": "server_info", "arguments": {}}')
        assert info["result"]["isError"] is False  # and the same process still serves


@pytest.mark.parametrize("path", ["task-2025-11-25", "task-extension"])
async def test_a_task_honours_max_sub_questions_and_a_finite_budget(path: str, data_dir: Path) -> None:
    async with http_server(data_dir) as base, wire(base) as w:
        reply = await w.start(path, f'{{"question": "{QUESTION}", "max_sub_questions": 1, "budget": 2.5}}')
        task = reply["result"]["task"] if path == "task-2025-11-25" else reply["result"]
        assert task["status"] == "working", reply
        plan_args = json.dumps({"name": "campaign_plan", "arguments": {"campaign_id": task["taskId"]}})
        status_args = json.dumps({"name": "campaign_status", "arguments": {"campaign_id": task["taskId"]}})
        wait_args = json.dumps(
            {
                "name": "campaign_wait",
                "arguments": {"campaign_id": task["taskId"], "until": "complete", "timeout_s": 55},
            }
        )
        with anyio.fail_after(120):
            while (await w.legacy("tools/call", wait_args))["result"]["structuredContent"]["phase"] not in ENDED:
                pass  # campaign_wait blocks until the campaign ends (or 55 s pass): ask again
        status = await w.legacy("tools/call", status_args)
        assert status["result"]["structuredContent"]["phase"] == "complete", status
        assert status["result"]["structuredContent"]["budget"] == 2.5
        plan = (await w.legacy("tools/call", plan_args))["result"]["structuredContent"]
        assert len(plan["sub_questions"]) == 1, plan
