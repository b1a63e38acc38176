"""Annotations, pinned tools and tool_search filters as clients see them (in-process and real HTTP, both eras)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from tests.clients import ERAS, connect, structured, text_of
from tests.servers import inprocess_http, inprocess_services

PINNED = ["corpus_search", "campaign_status"]


@asynccontextmanager
async def client_for(transport: str, era: str, data_dir: Path, **gateway: Any) -> AsyncIterator[Client]:
    settings = Settings(data_dir=data_dir, gateway={"mode": "proxy", **gateway})
    async with inprocess_services(settings) as services:
        if transport == "inproc":
            async with Client(build_server(services), mode=ERAS[era]) as client:
                yield client
        else:
            async with inprocess_http(services) as base, Client(f"{base}/mcp", mode=ERAS[era]) as client:
                yield client


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("transport", ["inproc", "http"])
async def test_pinned_tools_are_in_the_first_list_with_annotations(transport: str, era: str, data_dir: Path) -> None:
    async with client_for(transport, era, data_dir, pinned=[*PINNED, "not_a_tool"]) as client:
        tools = (await client.list_tools()).tools
        assert [t.name for t in tools] == ["tool_search", "tool_call", *PINNED]  # unknown pins are skipped
        search = tools[2]
        assert search.annotations is not None
        assert search.annotations.read_only_hint is True and search.annotations.destructive_hint is False
        result = await client.call_tool("corpus_search", {"query": "cable"})  # pinned tools are callable
        assert not result.is_error, text_of(result)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_full_list_annotates_every_tool(era: str, data_dir: Path) -> None:
    async with connect("inproc", era, data_dir, gateway_mode="full") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name, tool in tools.items():
            if name in ("tool_search", "tool_call"):
                continue
            hints = tool.annotations
            assert hints is not None and hints.read_only_hint is not None, name
            assert hints.destructive_hint is not None and hints.idempotent_hint is not None, name
            assert hints.open_world_hint is not None, name
        assert tools["corpus_remove"].annotations.destructive_hint is True
        assert tools["web_search"].annotations.open_world_hint is True


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("transport", ["inproc", "http"])
async def test_search_hits_carry_hints_and_filters_work(transport: str, era: str, data_dir: Path) -> None:
    async with client_for(transport, era, data_dir) as client:
        found = structured(await client.call_tool("tool_search", {"query": "find documents about asyncio"}))
        first = found["hits"][0]
        assert first["name"] == "corpus_search"
        assert first["annotations"]["readOnlyHint"] is True
        assert (first["category"], first["source"]) == ("corpus", "deepr")

        only = structured(
            await client.call_tool("tool_search", {"query": "delete", "category": "sandbox", "limit": 10})
        )
        assert only["hits"] and {h["category"] for h in only["hits"]} == {"sandbox"}
        local = structured(await client.call_tool("tool_search", {"query": "search", "source": "deepr"}))
        assert local["hits"] and {h["source"] for h in local["hits"]} == {"deepr"}

        bad = await client.call_tool("tool_search", {"query": "search", "source": "nowhere"})
        assert bad.is_error and "no tool has source 'nowhere'" in text_of(bad) and "deepr" in text_of(bad)
        bad = await client.call_tool("tool_search", {"query": "search", "category": "nope"})
        assert bad.is_error and "known: budget, campaign" in text_of(bad)
        md = await client.call_tool("tool_search", {"query": "remove a document", "format": "markdown"})
        assert "**corpus_remove**" in text_of(md) and "[destructive]" in text_of(md)
