"""Talking to a server the way clients do: the SDK client in either era, what it records, a scripted human,
and a raw 2026-07-28 tasks-extension client."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import anyio
import mcp_types as types
from mcp import Client
from mcp.client.sse import sse_client

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from tests.servers import config_env, http_server, stdio_params

ERAS = {"legacy": "legacy", "modern": "auto"}
"""Client ``mode`` per protocol era: the 2025-11-25 handshake, or 2026-07-28 via server/discover."""


MODERN_VERSION = "2026-07-28"


HANDSHAKE_VERSION = "2025-11-25"


class Recorder:
    """A client message handler that remembers every server notification it saw."""

    def __init__(self) -> None:
        self.notifications: list[Any] = []
        self.changed = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, Exception):
            return
        self.notifications.append(message)
        self.changed.set()
        self.changed = anyio.Event()

    async def wait_for(self, predicate: Any) -> None:
        """Sleep until ``predicate(self)`` holds, waking on each new notification."""
        while not predicate(self):
            await self.changed.wait()

    def methods(self) -> list[str]:
        return [getattr(n, "method", type(n).__name__) for n in self.notifications]

    def saw(self, method: str) -> bool:
        return method in self.methods()


@asynccontextmanager
async def connect(
    transport: str,
    era: str,
    data_dir: Path,
    *,
    gateway_mode: str = "proxy",
    config: dict[str, Any] | None = None,
    message_handler: Any = None,
    **client_kwargs: Any,
) -> AsyncIterator[Client]:
    """A connected SDK ``Client`` over ``transport`` (inproc | stdio | http | sse) in ``era``."""
    config = {"gateway": {"mode": gateway_mode}, **(config or {})}
    env = config_env(config)
    mode = ERAS[era]
    if transport == "inproc":
        settings = Settings(data_dir=data_dir, **config)
        async with Root(settings) as services:
            async with Client(build_server(services), mode=mode, message_handler=message_handler, **client_kwargs) as c:
                yield c
    elif transport == "stdio":
        params = stdio_params(data_dir, **env)
        async with Client(params, mode=mode, message_handler=message_handler, **client_kwargs) as c:
            yield c
    elif transport == "http":
        async with http_server(data_dir, **env) as base:
            async with Client(f"{base}/mcp", mode=mode, message_handler=message_handler, **client_kwargs) as c:
                yield c
    elif transport == "sse":
        async with http_server(data_dir, **env) as base:
            async with Client(sse_client(f"{base}/sse"), mode="legacy", message_handler=message_handler) as c:
                yield c
    else:
        raise ValueError(transport)


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def structured(result: types.CallToolResult) -> dict[str, Any]:
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(text_of(result))


async def call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool("tool_call", {"name": name, "arguments": arguments})
    assert not result.is_error, text_of(result)
    return structured(result)


async def embedded(client: Client) -> dict[str, Any]:
    """The corpus status once every passage has its vector (the background worker's event, seen by polling):
    until then hybrid search ranks an unembedded passage by its words alone, by design."""
    with anyio.fail_after(120):
        while True:
            status = (await call(client, "corpus_list", {}))["embedding"]
            if status["state"] == "done":
                return status
            await anyio.sleep(0.05)


async def attempt(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    """``(ok, text)`` of a tool call through the gateway, whatever the outcome."""
    result = await client.call_tool("tool_call", {"name": name, "arguments": arguments})
    return not result.is_error, text_of(result)


class Human:
    """An elicitation callback that answers from a script and remembers what it was asked."""

    def __init__(self, *answers: types.ElicitResult) -> None:
        self.answers = list(answers)
        self.asked: list[types.ElicitRequestFormParams] = []

    async def __call__(self, context: Any, params: Any) -> types.ElicitResult:
        self.asked.append(params)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def accept(**content: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=content)


def payload(result: object) -> dict:
    """Haystack returns the CallToolResult serialised as JSON text."""
    body = json.loads(str(result))
    return body.get("structuredContent") or json.loads(body["content"][0]["text"])


EXTENSION = "io.modelcontextprotocol/tasks"


JSON_ACCEPT = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


class Modern:
    """One 2026-07-28 tasks-extension client: every request carries its own envelope; no session."""

    def __init__(self, http: aiohttp.ClientSession, url: str, *, elicitation: bool = True) -> None:
        self.http, self.url, self.next_id = http, url, 0
        self.elicitation = elicitation  # declared in every envelope, as the SDK client does with a callback

    async def send(self, method: str, params: dict[str, Any], *, extension: bool = True) -> dict[str, Any]:
        self.next_id += 1
        capabilities: dict[str, Any] = {"extensions": {EXTENSION: {}}} if extension else {}
        if self.elicitation:
            capabilities["elicitation"] = {"form": {}}
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
            "io.modelcontextprotocol/clientInfo": {"name": "tasks-ext", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        }
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": {**params, "_meta": meta}}
        headers = {**JSON_ACCEPT, "mcp-protocol-version": MODERN_VERSION, "mcp-method": method}
        if method == "tools/call":
            headers["mcp-name"] = params["name"]
        elif method in {"tasks/get", "tasks/update", "tasks/cancel"} and isinstance(params.get("taskId"), str):
            headers["mcp-name"] = params["taskId"]  # SEP-2663: the task id routes like a tool name
        async with self.http.post(self.url, json=body, headers=headers) as resp:
            text = await resp.text()
        for line in text.splitlines():
            if line.startswith("data:"):
                return json.loads(line[5:])
        return json.loads(text)

    async def result(self, method: str, params: dict[str, Any], **kw: Any) -> dict[str, Any]:
        reply = await self.send(method, params, **kw)
        assert "result" in reply, reply
        return reply["result"]

    async def error(self, method: str, params: dict[str, Any], **kw: Any) -> dict[str, Any]:
        reply = await self.send(method, params, **kw)
        assert "error" in reply, reply
        return reply["error"]

    async def until(self, task_id: str, *statuses: str) -> dict[str, Any]:
        with anyio.fail_after(30):
            while (task := await self.result("tasks/get", {"taskId": task_id}))["status"] not in statuses:  # noqa: ASYNC110 - polling tasks/get is how the extension works
                await anyio.sleep(0.05)
        return task


@asynccontextmanager
async def modern_client(base: str, token: str | None = None, *, elicitation: bool = True) -> AsyncIterator[Modern]:
    """A raw 2026-07-28 JSON-RPC client (the SDK's has no tasks extension), with ``token`` as bearer."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with aiohttp.ClientSession(headers=headers) as http:
        yield Modern(http, f"{base}/mcp", elicitation=elicitation)
