"""SEP-2663 routing header (issue 31 item 17): a 2026-07-28 ``tasks/get``, ``tasks/update`` or
``tasks/cancel`` whose ``Mcp-Name`` header is missing or is not the body's ``taskId`` is answered
-32020 with HTTP 400 and does nothing; with the right header each works (real HTTP)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.campaigns import QUESTION
from tests.clients import EXTENSION, JSON_ACCEPT, MODERN_VERSION, modern_client
from tests.servers import config_env, http_server

META = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "routing", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}},
}


async def post(url: str, method: str, params: dict[str, Any], name: str | None) -> tuple[int, dict[str, Any]]:
    headers = {**JSON_ACCEPT, "mcp-protocol-version": MODERN_VERSION, "mcp-method": method}
    if name is not None:
        headers["mcp-name"] = name
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": {**params, "_meta": META}}
    async with aiohttp.ClientSession() as http, http.post(url, json=body, headers=headers) as resp:
        return resp.status, await resp.json(content_type=None)


@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel"])
async def test_a_task_request_without_its_routing_header_is_refused(method: str, data_dir: Path) -> None:
    async with (
        http_server(data_dir, **config_env({"jobs": {"step_delay_s": 0.2}})) as base,
        modern_client(base) as c,
    ):
        start = {"name": "tool_call", "arguments": {"name": "campaign_start", "arguments": {"question": QUESTION}}}
        task_id = (await c.result("tools/call", start))["taskId"]
        params: dict[str, Any] = {"taskId": task_id}
        if method == "tasks/update":
            params["inputResponses"] = {}
        for header in [None, "", task_id + "x", "another-task"]:
            status, reply = await post(f"{base}/mcp", method, params, header)
            assert status == 400, (header, status, reply)
            assert reply["id"] == 7 and reply["error"]["code"] == -32020, reply
            assert "Mcp-Name" in reply["error"]["message"] or "mcp-name" in reply["error"]["message"], reply
        task = await c.result("tasks/get", {"taskId": task_id})
        assert task["status"] != "cancelled"  # the refused cancels did nothing
        status, reply = await post(f"{base}/mcp", method, params, task_id)
        assert status == 200 and "result" in reply, reply
