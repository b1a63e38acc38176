"""Upstream tools as research sources: a campaign cites their items and accounts for their calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from deepr_mcp.upstreams.research_source import items_of
from tests.campaigns import follow
from tests.clients import call
from tests.upstreams.upstream_servers import fixture_upstream

QUESTION = "Why did the first transatlantic telegraph cable fail?"


async def run_campaign(data_dir: Path, source: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    settings = Settings(data_dir=data_dir, upstreams=[fixture_upstream()], research={"sources": [source]})
    async with Root(settings) as root, Client(build_server(root), mode="legacy") as client:
        started = await call(client, "campaign_start", {"question": QUESTION, "budget": 0.5})
        answers = await follow(client, started["campaign_id"])
        assert answers[-1]["phase"] == "complete", answers[-1]
        report = await client.call_tool("campaign_report", {"campaign_id": started["campaign_id"]})
        costs = await call(client, "cost_report", {"campaign_id": started["campaign_id"]})
        text = "".join(c.text for c in report.content if isinstance(c, types.TextContent))
        return text, costs


async def test_a_campaign_cites_upstream_items_and_records_the_calls(data_dir: Path) -> None:
    source = {"upstream": "fx", "tool": "search", "query_arg": "query", "limit": 3, "cost_per_call": 0.001}
    report, costs = await run_campaign(data_dir, source)
    assert "upstream fx, tool search" in report  # the citation names the upstream tool...
    assert "https://archive.example/1858/" in report  # ...and the item
    asks = [s for s in costs["steps"] if s["provider"] == "upstream:fx"]
    assert asks and all(s["model"] == "search" and s["step"].startswith("gather:") for s in asks)
    assert all(s["duration_s"] is not None and s["error"] is None and s["cost"] == 0.001 for s in asks)
    assert any(s["items"] > 0 for s in asks)
    assert costs["total"] >= 0.001 * len(asks)


async def test_a_failing_source_is_recorded_and_the_corpus_answers_alone(data_dir: Path) -> None:
    report, costs = await run_campaign(data_dir, {"upstream": "fx", "tool": "fail"})
    asks = [s for s in costs["steps"] if s["provider"] == "upstream:fx"]
    assert asks and all("it failed on purpose" in s["error"] and s["items"] == 0 for s in asks)
    assert "## Sources" in report and "upstream fx" not in report


def test_items_are_read_the_way_search_tools_shape_them() -> None:
    listed = types.CallToolResult(
        content=[types.TextContent(text="ignored when structured")],
        structured_content={"hits": [{"name": "Doc", "link": "https://x.example/doc", "summary": "Body."}, "plain"]},
    )
    assert items_of(listed) == [
        ("item 1: Doc (https://x.example/doc)", "https://x.example/doc", "Doc. Body."),
        ("item 2", "", "plain"),
    ]
    prose = types.CallToolResult(content=[types.TextContent(text="First paragraph.\n\nSecond one.")])
    assert [text for _, _, text in items_of(prose)] == ["First paragraph.", "Second one."]
    as_json = types.CallToolResult(content=[types.TextContent(text='[{"title": "T", "text": "Body"}]')])
    assert items_of(as_json) == [("item 1: T", "", "T. Body")]
