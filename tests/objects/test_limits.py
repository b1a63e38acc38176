"""The object store's bounds as clients meet them (issue 31 items 6-8), against a real upstream process.

Big results come from tests/upstreams/fixture_server.py over stdio; deepr-mcp serves real HTTP on
127.0.0.1 with several principals, each its own bearer token.
"""

from __future__ import annotations

import json
from pathlib import Path

from mcp import Client

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from tests.support import as_principal, fixture_upstream, inprocess_http, principals_config, structured, text_of

BIG = ("--hostile", "big_structured", "--hostile", "big_items")
PRINCIPALS = {f"p{i}": ["read", "research"] for i in range(6)}
ITEM = 100 * 1024  # what the fixture's huge(megabytes=0.1) answers, in bytes of text


def wire_bytes(result: object) -> int:
    """What the client received, as JSON."""
    return len(json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True)).encode())


async def test_the_store_total_is_capped_across_principals_oldest_evicted(empty_data_dir: Path) -> None:
    limit = 3 * ITEM + ITEM // 2  # room for three results of everyone's together
    settings = Settings(
        data_dir=empty_data_dir,
        auth=principals_config(PRINCIPALS),
        objects={"max_total_bytes": limit, "max_bytes_per_owner": 10 * ITEM},
        upstreams=[fixture_upstream()],
    )
    async with Root(settings) as root, inprocess_http(root) as base:
        refs: dict[str, str] = {}
        for name in PRINCIPALS:  # six principals (as six OAuth subjects would be), one big result each
            async with as_principal(base, name) as client:
                result = await client.call_tool("tool_call", {"name": "fx_huge", "arguments": {"megabytes": 0.1}})
                answer = structured(result)
                assert answer["truncated"] and answer["object"] is not None, answer
                refs[name] = answer["object"]["ref"]
            store = root.objects.store
            assert store.total_bytes <= limit, (name, store.total_bytes)

        assert store.evicted == 3 and len(store) == 3
        async with as_principal(base, "p0") as client:  # the oldest is gone, and the answer says why
            gone = await client.call_tool("tool_call", {"name": "object_get", "arguments": {"ref": refs["p0"]}})
            assert gone.is_error and "dropped to keep the store within its limits" in text_of(gone)
        async with as_principal(base, "p5") as client:  # the newest still reads, and the server keeps serving
            kept = await client.call_tool("object_slice", {"ref": refs["p5"], "start": 0, "end": 10})
            assert not kept.is_error and structured(kept)["items"] == "x" * 10
            assert not (await client.call_tool("server_info", {})).is_error


async def test_config_show_names_the_total(empty_data_dir: Path) -> None:
    shown = Settings(data_dir=empty_data_dir).model_dump(mode="json")
    assert shown["objects"]["max_total_bytes"] == 1024 * 2**20


async def test_big_structured_content_becomes_a_reference(empty_data_dir: Path) -> None:
    settings = Settings(data_dir=empty_data_dir, upstreams=[fixture_upstream("fx", *BIG)])
    async with Root(settings) as root, Client(build_server(root), mode="legacy") as client:
        result = await client.call_tool("fx_big_structured", {"megabytes": 5})
        assert not result.is_error and wire_bytes(result) < 64 * 1024, wire_bytes(result)
        answer = structured(result)
        assert answer["truncated"] and answer["object"]["size_bytes"] > 5 * 2**20
        rows = await client.call_tool("object_get", {"ref": answer["object"]["ref"] + ".rows[3]"})
        assert structured(rows)["value"] == {"n": 3}
        echo = await client.call_tool("fx_echo", {"text": "small stays whole"})
        assert structured(echo) == {"echo": "small stays whole"}


async def test_a_slice_of_one_big_item_is_bounded_by_bytes(empty_data_dir: Path) -> None:
    settings = Settings(data_dir=empty_data_dir, upstreams=[fixture_upstream("fx", *BIG)])
    async with Root(settings) as root, Client(build_server(root), mode="legacy") as client:
        ref = structured(await client.call_tool("fx_big_items", {"megabytes": 3}))["object"]["ref"]
        first = await client.call_tool("object_slice", {"ref": ref + ".items", "start": 0, "end": 1})
        assert not first.is_error and wire_bytes(first) < 64 * 1024, wire_bytes(first)
        part = structured(first)
        assert part["items"] == [] and part["next_start"] == 1 and part["truncated"]
        assert part["item_too_big"]["index"] == 0 and part["item_too_big"]["size_bytes"] > 3 * 2**20
        inside = await client.call_tool("object_slice", {"ref": ref + ".items[0]", "start": 0, "end": 5})
        assert structured(inside)["items"] == "iiiii"
        rest = await client.call_tool("object_slice", {"ref": ref + ".items", "start": 1})
        assert structured(rest)["items"] == ["small"]
