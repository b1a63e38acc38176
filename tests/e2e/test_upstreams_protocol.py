"""A federated upstream through deepr-mcp's real transports: a stdio subprocess and HTTP, both eras.

The config file is read the way a user writes it (``[[upstreams]]`` in TOML, via DEEPR_CONFIG).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from tests.support import ERAS, fixture_upstream, http_server, stdio_params, structured, text_of


def config_file(tmp_path: Path) -> Path:
    fx = fixture_upstream("fx")
    path = tmp_path / "config.toml"
    path.write_text(
        '[gateway]\nmode = "proxy"\n[[upstreams]]\nname = "fx"\n'
        f"command = {json.dumps(fx['command'])}\nargs = {json.dumps(fx['args'])}\ncwd = {json.dumps(fx['cwd'])}\n"
    )
    return path


async def exercise(client: Client) -> None:
    hits = structured(await client.call_tool("tool_search", {"query": "echo the given text back"}))["hits"]
    assert hits[0]["name"] == "fx_echo"
    echoed = await client.call_tool("tool_call", {"name": "fx_echo", "arguments": {"text": "through deepr"}})
    assert not echoed.is_error and echoed.structured_content == {"echo": "through deepr"}
    failed = await client.call_tool("tool_call", {"name": "fx_fail", "arguments": {}})
    assert failed.is_error and text_of(failed) == "it failed on purpose"


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_upstream_over_stdio(era: str, tmp_path: Path, empty_data_dir: Path) -> None:
    params = stdio_params(empty_data_dir, DEEPR_CONFIG=str(config_file(tmp_path)))
    async with Client(params, mode=ERAS[era]) as client:
        await exercise(client)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_upstream_over_http(era: str, tmp_path: Path, empty_data_dir: Path) -> None:
    async with http_server(empty_data_dir, DEEPR_CONFIG=str(config_file(tmp_path))) as base:
        async with Client(f"{base}/mcp", mode=ERAS[era]) as client:
            await exercise(client)
