"""Haystack's MCPToolset lists tools once at connect and calls them by name: the proxy gateway
must carry it all the way to a catalogue tool, over stdio, streamable HTTP and legacy SSE."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from haystack_integrations.tools.mcp import MCPToolset, SSEServerInfo, StdioServerInfo, StreamableHttpServerInfo

from tests.clients import payload
from tests.servers import http_server_sync, server_env


@contextmanager
def server_info(transport: str, data_dir: Path) -> Iterator[object]:
    if transport == "stdio":
        env = server_env(data_dir)
        yield StdioServerInfo(command=sys.executable, args=["-m", "deepr_mcp", "serve"], env=env)
        return
    with http_server_sync(data_dir) as base:
        if transport == "http":
            yield StreamableHttpServerInfo(url=f"{base}/mcp")
        else:
            yield SSEServerInfo(url=f"{base}/sse")


@pytest.mark.parametrize("transport", ["stdio", "http", "sse"])
def test_haystack_toolset_reaches_catalogue_through_gateway(transport: str, data_dir: Path) -> None:
    with server_info(transport, data_dir) as info:
        toolset = MCPToolset(server_info=info)
        try:
            if hasattr(toolset, "warm_up"):
                toolset.warm_up()
            tools = {tool.name: tool for tool in toolset}
            assert set(tools) == {"tool_search", "tool_call"}
            hits = payload(tools["tool_search"].invoke(query="which version is the server"))["hits"]
            assert hits[0]["name"] == "server_info"
            info_result = payload(tools["tool_call"].invoke(name=hits[0]["name"], arguments={}))
            assert info_result["name"] == "deepr-mcp"
        finally:
            toolset.close()
