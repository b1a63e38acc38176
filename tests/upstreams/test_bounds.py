"""Upstreams that send too much or send it wrong (issue 31 items 10-12): each is bounded, explained
once, and the server keeps serving, against a real upstream process (tests/upstreams/fixture_server.py).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from deepr_mcp.app.handlers import TOOLS_PAGE
from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from tests.support import fixture_upstream, structured, text_of


async def test_a_tool_whose_schema_points_nowhere_is_left_out_once(
    empty_data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="deepr_mcp")
    settings = Settings(data_dir=empty_data_dir, upstreams=[fixture_upstream("fx", "--hostile", "dangling")])
    async with Root(settings) as root, Client(build_server(root), mode="legacy") as client:
        for _ in range(3):  # calls and searches, and a re-sync, log it no more than once
            result = await client.call_tool("tool_call", {"name": "fx_dangling", "arguments": {"x": 1}})
            message = text_of(result)
            assert result.is_error and "upstream 'fx' has a tool 'dangling', left out" in message, message
            assert "'#/$defs/missing' points nowhere" in message and "code 0" not in message
        await root.upstreams.catalogues["fx"].sync()
        hits = structured(await client.call_tool("tool_search", {"query": "a $ref that points nowhere", "limit": 20}))
        assert "fx_dangling" not in {h["name"] for h in hits["hits"]}
        assert structured(await client.call_tool("fx_echo", {"text": "still"})) == {"echo": "still"}

        report = await root.upstreams.check("fx")
        assert report["ok"] and "'#/$defs/missing' points nowhere" in report["skipped"]["dangling"]
    said = [r.getMessage() for r in caplog.records if "dangling" in r.getMessage()]
    assert len(said) == 1 and "points nowhere" in said[0], said
    assert not any(r.exc_info for r in caplog.records)


async def test_tools_are_capped_per_upstream_and_listed_in_pages(
    empty_data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="deepr_mcp")
    upstream = fixture_upstream("fx", "--tools", "20000", max_tools=1200, timeout_s=120, connect_timeout_s=120)
    settings = Settings(data_dir=empty_data_dir, gateway={"mode": "full"}, upstreams=[upstream])
    async with Root(settings) as root, Client(build_server(root), mode="legacy") as client:
        names: list[str] = []
        cursor: str | None = None
        pages = 0
        while True:
            page = await client.session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
            pages += 1
            assert len(page.tools) <= TOOLS_PAGE
            names += [t.name for t in page.tools]
            cursor = page.next_cursor
            if cursor is None:
                break
        federated = [n for n in names if n.startswith("fx_")]
        assert len(federated) == 1200 and len(set(names)) == len(names) and pages >= 3
        assert "fx_echo" in names and "tool_search" in names

        report: dict[str, Any] = await root.upstreams.check("fx")
        catalogue = root.upstreams.catalogues["fx"]
        listed = len(root.upstreams.connections["fx"].cached_tools or [])
        assert listed > 20000 and report["tools"] == 1200
        assert report["over_cap"]["count"] == listed - 1200 - len(catalogue.skipped)
        assert "max_tools" in report["over_cap"]["why"]

        with pytest.raises(MCPError) as refused:
            await client.session.list_tools(params=types.PaginatedRequestParams(cursor="not-a-cursor"))
        assert refused.value.error.code == INVALID_PARAMS and "invalid cursor" in refused.value.error.message
        assert structured(await client.call_tool("fx_echo", {"text": "still"})) == {"echo": "still"}
    said = [r.getMessage() for r in caplog.records if "past max_tools" in r.getMessage()]
    assert said and "left out past max_tools (1200)" in said[0]


async def test_a_noisy_upstream_costs_a_few_log_lines_not_a_traceback_each(
    empty_data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    upstreams = [fixture_upstream("fx", "--hostile", "noisy"), fixture_upstream("good")]
    settings = Settings(data_dir=empty_data_dir, upstreams=upstreams)
    async with Root(settings) as root, Client(build_server(root), mode="legacy") as client:
        assert structured(await client.call_tool("fx_echo", {"text": "before"})) == {"echo": "before"}
        caplog.clear()
        printed = await client.call_tool("fx_noisy", {"lines": 5000})
        assert not printed.is_error and text_of(printed) == "printed"
        assert structured(await client.call_tool("fx_echo", {"text": "after"})) == {"echo": "after"}
        assert structured(await client.call_tool("good_echo", {"text": "other"})) == {"echo": "other"}
        noisy = list(caplog.records)
    assert not any(r.exc_info for r in noisy), [r.getMessage() for r in noisy if r.exc_info][:1]
    lines = [r.getMessage() for r in noisy if r.levelno >= logging.WARNING and r.name.startswith("deepr_mcp")]
    assert len(lines) == 8, lines  # 3 lines shown, then a summary per 1,000
    assert any("5000 stdout lines that are not JSON-RPC ignored" in line for line in lines), lines
