"""MCP tasks (2025-11-25) follow ownership: another principal's task is neither listed nor reachable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import anyio

from tests.support import QUESTION, principal_server, principal_token

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
