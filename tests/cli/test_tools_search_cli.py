"""``deepr-mcp tools search`` ranks as the served ``tool_search`` does: words and meaning, same order."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.cli import main
from deepr_mcp.config import Settings
from tests.clients import structured

QUERY = "zebra giraffe savanna"
"""Shares no word with any catalogue tool: only meaning can rank anything for it."""


def cli_names(data_dir: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> list[str]:
    code = main(["--data-dir", str(data_dir), "tools", "search", QUERY, "--limit", "5", *extra])
    out = capsys.readouterr().out
    return [line.split()[0] for line in out.splitlines()] if code == 0 else []


async def served_names(data_dir: Path) -> list[str]:
    async with Root(Settings(data_dir=data_dir)) as root:
        vectors = root.registry.vectors
        assert vectors is not None
        assert await anyio.to_thread.run_sync(vectors.wait_idle, 300), "tool vectors never finished embedding"
        async with Client(build_server(root), mode="legacy") as client:
            found = structured(await client.call_tool("tool_search", {"query": QUERY, "limit": 5}))
    return [hit["name"] for hit in found["hits"]]


def test_cli_ranks_by_meaning_like_the_served_tool_search(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_names(tmp_path, capsys, "--mode", "lexical") == []
    by_meaning = cli_names(tmp_path, capsys)
    assert len(by_meaning) == 5
    assert by_meaning == anyio.run(served_names, tmp_path)
    assert by_meaning == cli_names(tmp_path, capsys, "--mode", "hybrid")  # the cached vectors: the same again
