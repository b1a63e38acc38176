"""Upstreams that misbehave from the start: each gives a clear error naming it, the server keeps
serving, and a good upstream configured beside it is unaffected.

The bad upstream's listing is seeded on disk (as an earlier good run leaves it), so its tool is
searchable and a call shows the reason the upstream cannot answer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from tests.clients import structured, text_of
from tests.upstreams.upstream_servers import fixture_upstream

BAD = {
    "missing command": ({"command": "/nonexistent/mcp-server", "args": []}, "connect failed: command not found"),
    "exits at once": (
        {"args": ["-m", "tests.upstreams.fixture_server", "--start", "exit"]},
        "fixture: exiting at once as asked",  # its own stderr, quoted
    ),
    "garbage on stdout": (
        {"args": ["-m", "tests.upstreams.fixture_server", "--start", "garbage"]},
        "no answer to initialize within 8 s",
    ),
    "never answers initialize": (
        {"args": ["-m", "tests.upstreams.fixture_server", "--start", "silent"]},
        "no answer to initialize within 8 s",
    ),
    "not an MCP server": (
        {"command": sys.executable, "args": ["-c", "print('hello')"]},
        "connect failed: the server closed the connection before answering initialize",
    ),
}


def seed_listing(data_dir: Path, name: str) -> None:
    folder = data_dir / "upstreams"
    folder.mkdir(parents=True, exist_ok=True)
    schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    tool = {"name": "echo", "description": "Echo the given text back.", "inputSchema": schema}
    (folder / f"{name}.tools.json").write_text(json.dumps([tool]))


@pytest.mark.parametrize("case", list(BAD))
async def test_a_hostile_upstream_is_contained(case: str, empty_data_dir: Path) -> None:
    fields, expected = BAD[case]
    seed_listing(empty_data_dir, "bad")
    bad: dict[str, Any] = fixture_upstream("bad", connect_timeout_s=8) | fields
    settings = Settings(data_dir=empty_data_dir, upstreams=[bad, fixture_upstream("good")])
    async with Root(settings) as root, Client(build_server(root), mode="legacy") as client:
        hits = structured(await client.call_tool("tool_search", {"query": "echo the given text back", "limit": 5}))
        assert {"bad_echo", "good_echo"} <= {h["name"] for h in hits["hits"]}

        result = await client.call_tool("bad_echo", {"text": "hi"})
        assert result.is_error
        message = text_of(result)
        assert message.startswith("Error: upstream 'bad' (stdio ") and expected in message, message
        assert "Traceback" not in message

        good = await client.call_tool("good_echo", {"text": "unaffected"})
        assert not good.is_error and structured(good) == {"echo": "unaffected"}
        assert not (await client.call_tool("server_info", {})).is_error
