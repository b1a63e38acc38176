"""A federated upstream through deepr-mcp's real transports: a stdio subprocess and HTTP, both eras.

The config file is read the way a user writes it (``[[upstreams]]`` in TOML, via DEEPR_CONFIG).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from tests.clients import ERAS, structured, text_of
from tests.servers import http_server, stdio_params
from tests.upstreams.upstream_servers import fixture_upstream


def config_file(tmp_path: Path, mode: str = "proxy") -> Path:
    fx = fixture_upstream("fx")
    path = tmp_path / "config.toml"
    path.write_text(
        f'[gateway]\nmode = "{mode}"\n[[upstreams]]\nname = "fx"\n'
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


async def big_results_of_schema_tools(client: Client) -> None:
    """Upstream tools that declare an outputSchema, called by name: the SDK client validates every result."""
    listed = {t.name: t for t in (await client.list_tools()).tools}
    claimed = listed["fx_echo"].output_schema
    assert claimed is not None and claimed["anyOf"][0] == {
        "type": "object",
        "properties": {"echo": {"type": "string"}},
        "required": ["echo"],
    }  # the upstream's own schema, or the preview that replaces a big result
    small = await client.call_tool("fx_echo", {"text": "small"})
    assert not small.is_error and small.structured_content == {"echo": "small"}  # unchanged
    big = await client.call_tool("fx_echo", {"text": "é" * 20_000})  # raised before: preview vs schema
    preview = structured(big)
    assert not big.is_error and preview["truncated"] is True and preview["object"]["type"] == "object"
    ref = preview["object"]["ref"]
    assert json.loads(big.content[0].text)["object"]["ref"] == ref  # the model sees the reference too
    whole = structured(await client.call_tool("object_slice", {"ref": f"{ref}.echo", "start": 0, "end": 3}))
    assert whole["items"] == "ééé" and whole["total"] == 20_000

    records = await client.call_tool("fx_records", {"count": 2000})  # $defs and $ref kept resolvable
    assert not records.is_error and structured(records)["truncated"] is True
    assert (await client.call_tool("fx_records", {"count": 2})).structured_content == {
        "records": [{"id": 0, "title": "Record 0 of the archive"}, {"id": 1, "title": "Record 1 of the archive"}]
    }
    assert listed["fx_pointer"].output_schema is None  # a pointer into its own properties: not claimed, not broken
    pointer = await client.call_tool("fx_pointer", {"chars": 10_000})
    assert not pointer.is_error and structured(pointer)["truncated"] is True


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_big_results_of_upstream_tools_with_an_output_schema(
    era: str, tmp_path: Path, empty_data_dir: Path
) -> None:
    async with http_server(empty_data_dir, DEEPR_CONFIG=str(config_file(tmp_path, "full"))) as base:
        async with Client(f"{base}/mcp", mode=ERAS[era]) as client:
            await big_results_of_schema_tools(client)
