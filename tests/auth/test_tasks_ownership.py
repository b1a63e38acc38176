"""MCP tasks (2025-11-25) follow ownership: another principal's task is neither listed nor reachable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import anyio

from tests.campaigns import QUESTION
from tests.principals import principal_server, principal_token

ACCEPT = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


class Session:
    """Raw JSON-RPC over streamable HTTP with one principal's token (the SDK client has no task API)."""

    def __init__(self, http: aiohttp.ClientSession, base: str, principal: str) -> None:
        self.http, self.url, self.next_id = http, f"{base}/mcp", 1
        self.headers = {**ACCEPT, "Authorization": f"Bearer {principal_token(principal)}"}

    async def open(self) -> Session:
        params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        await self.request("initialize", params)
        self.headers["mcp-protocol-version"] = "2025-11-25"
        return self

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        async with self.http.post(self.url, json=body, headers=self.headers) as resp:
            self.headers.setdefault("mcp-session-id", resp.headers.get("mcp-session-id", ""))
            text = await resp.text()
        for line in text.splitlines():
            if line.startswith("data:") and json.loads(line[5:]).get("id") == self.next_id:
                return json.loads(line[5:])
        return json.loads(text)


async def test_tasks_follow_ownership_and_scopes(data_dir: Path) -> None:
    async with principal_server(data_dir, jobs={"step_delay_s": 0.2}) as (_, base), aiohttp.ClientSession() as http:
        with anyio.fail_after(60):
            owner = await Session(http, base, "researcher").open()
            other = await Session(http, base, "other").open()
            reader = await Session(http, base, "reader").open()
            start = {"name": "tool_call", "arguments": {"name": "campaign_start", "arguments": {"question": QUESTION}}}
            refused = await reader.request("tools/call", {**start, "task": {}})
            assert "needs scope 'research'" in refused["error"]["message"]
            task_id = (await owner.request("tools/call", {**start, "task": {}}))["result"]["task"]["taskId"]
            assert [t["taskId"] for t in (await owner.request("tasks/list", {}))["result"]["tasks"]] == [task_id]
            assert (await other.request("tasks/list", {}))["result"]["tasks"] == []
            for method in ["tasks/get", "tasks/result", "tasks/cancel"]:
                answer = await other.request(method, {"taskId": task_id})
                assert "not shared with 'other'" in answer["error"]["message"], method
            cancel = await reader.request("tasks/cancel", {"taskId": task_id})
            assert "needs scope 'research'" in cancel["error"]["message"]
            assert (await owner.request("tasks/get", {"taskId": task_id}))["result"]["taskId"] == task_id


async def test_2026_tasks_extension_follows_ownership(data_dir: Path) -> None:
    """The SEP-2663 task of one principal: others with no share neither get, answer nor cancel it."""
    from tests.clients import modern_client

    async with principal_server(data_dir) as (_, base):
        async with modern_client(base, principal_token("researcher")) as owner:
            task = await owner.result("tools/call", start_campaign())
            assert task["resultType"] == "task"
            task_id = task["taskId"]
            assert (await owner.result("tasks/get", {"taskId": task_id}))["taskId"] == task_id
        async with modern_client(base, principal_token("other")) as other:
            for method in ("tasks/get", "tasks/cancel"):
                error = await other.error(method, {"taskId": task_id})
                assert "belongs to principal 'researcher'" in error["message"], (method, error)
        async with modern_client(base, principal_token("reader")) as reader:
            denied = await reader.send("tools/call", start_campaign())
            assert "needs scope 'research'" in json.dumps(denied), denied
            answer = {"taskId": task_id, "inputResponses": {}}
            error = await reader.error("tasks/update", answer)
            assert "needs scope 'approve'" in error["message"] or "not shared" in error["message"], error


def start_campaign() -> dict[str, Any]:
    return {"name": "tool_call", "arguments": {"name": "campaign_start", "arguments": {"question": QUESTION}}}
