"""Big results by reference as clients see them: in-process and real HTTP, both eras, two principals."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from deepr_mcp.gateway.spec import ToolSpec
from tests.clients import ERAS, connect, structured, text_of
from tests.principals import as_principal, principal_server
from tests.servers import inprocess_http, inprocess_services

OBJECTS = {"threshold_bytes": 1024, "preview_chars": 600}


@asynccontextmanager
async def client_for(transport: str, era: str, data_dir: Path) -> AsyncIterator[tuple[Root, Client]]:
    settings = Settings(data_dir=data_dir, objects=OBJECTS)
    async with inprocess_services(settings) as services:
        if transport == "inproc":
            async with Client(build_server(services), mode=ERAS[era]) as client:
                yield services, client
        else:
            async with inprocess_http(services) as base, Client(f"{base}/mcp", mode=ERAS[era]) as client:
                yield services, client


async def big_search(client: Client) -> dict:
    result = await client.call_tool(
        "tool_call", {"name": "corpus_search", "arguments": {"query": "cable", "limit": 20}}
    )
    assert not result.is_error, text_of(result)
    return structured(result)


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("transport", ["inproc", "http"])
async def test_big_result_preview_get_slice_and_reference(transport: str, era: str, data_dir: Path) -> None:
    async with client_for(transport, era, data_dir) as (_, client):
        answer = await big_search(client)
        assert answer["truncated"] is True and answer["object"]["type"] == "object"
        assert answer["object"]["size_bytes"] > 1024 and len(text_of_answer(answer)) < 1024 + 600
        ref = answer["object"]["ref"]
        assert answer["object"]["id"].startswith("obj_") and len(answer["object"]["id"]) == 28

        got = structured(await client.call_tool("object_get", {"ref": f"{ref}.hits[1].source"}))
        assert isinstance(got["value"], str) and got["type"] == "string"
        page = structured(await client.call_tool("object_slice", {"ref": f"{ref}.hits", "start": 0, "end": 2}))
        assert page["total"] >= 2 and len(page["items"]) <= 2 and "passage_id" in page["items"][0]

        # A reference as an argument, resolved before validation, by name and through tool_call.
        source = got["value"]
        direct = await client.call_tool("corpus_search", {"query": f"{ref}.hits[1].source", "limit": 1})
        assert not direct.is_error and structured(direct)["query"] == source
        proxied = await client.call_tool(
            "tool_call", {"name": "corpus_search", "arguments": {"query": f"{ref}.hits[1].source", "limit": 1}}
        )
        assert structured(proxied)["query"] == source

        bad = {
            f"{ref}.hits": "is an array; it takes string",
            f"{ref}.hits[999]": "out of range",
            f"{ref}.nope": "has no key 'nope'",
            f"{ref}.hits[": "bad path",
            "@obj_" + "0" * 24: "unknown object",
        }
        for value, message in bad.items():
            result = await client.call_tool("corpus_search", {"query": value})
            assert result.is_error and message in text_of(result), (value, text_of(result))
            assert "Traceback" not in text_of(result)
        for name, arguments, message in [
            ("object_get", {"ref": "obj_no_at"}, "is not a reference"),
            ("object_get", {"ref": "@obj_" + "1" * 24}, "unknown object"),
            ("object_get", {"ref": ref + ".a" * 70}, "more than 64 steps"),
            ("object_slice", {"ref": f"{ref}.query", "start": -1}, "greater than or equal to 0"),
            ("object_slice", {"ref": f"{ref}.hits[0]"}, "takes an array or a string"),
        ]:
            result = await client.call_tool(name, arguments)
            assert result.is_error and message in text_of(result), (name, text_of(result))
        assert not (await client.call_tool("server_info", {})).is_error  # still serving


def text_of_answer(answer: dict) -> str:
    return json.dumps(answer, separators=(",", ":"))


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_an_object_is_visible_only_to_its_principal(era: str, data_dir: Path) -> None:
    async with principal_server(data_dir, objects=OBJECTS) as (_, base):
        async with as_principal(base, "researcher", era) as mine:
            ref = (await big_search(mine))["object"]["ref"]
            assert not (await mine.call_tool("object_get", {"ref": f"{ref}.query"})).is_error
        async with as_principal(base, "researcher", era) as again:  # another connection, same principal
            assert structured(await again.call_tool("object_get", {"ref": f"{ref}.query"}))["value"] == "cable"
        async with as_principal(base, "other", era) as theirs:
            for name, arguments in [
                ("object_get", {"ref": ref}),
                ("object_slice", {"ref": f"{ref}.hits"}),
                ("corpus_search", {"query": f"{ref}.query"}),
            ]:
                result = await theirs.call_tool(name, arguments)
                assert result.is_error and "unknown object" in text_of(result), text_of(result)
                assert "cable" not in text_of(result)


@pytest.mark.parametrize("transport", ["inproc", "http"])
async def test_a_100_mb_result_is_previewed_and_the_server_keeps_serving(transport: str, data_dir: Path) -> None:
    async def flood(ctx: object, arguments: dict) -> str:
        return "z" * (100 * 2**20)

    async with client_for(transport, "legacy", data_dir) as (services, client):
        services.registry.register(
            ToolSpec("flood_tool", "Returns a 100 MB string.", {"type": "object", "properties": {}}, handler=flood)
        )
        result = await client.call_tool("tool_call", {"name": "flood_tool", "arguments": {}})
        answer = structured(result)
        assert not result.is_error and answer["truncated"] and answer["object"] is None
        assert answer["size_bytes"] == 100 * 2**20
        assert "over objects.max_object_bytes" in answer["not_stored"]
        assert len(text_of(result)) < 2000
        assert not (await client.call_tool("server_info", {})).is_error


async def test_stdio_server_takes_the_threshold_from_its_environment(data_dir: Path) -> None:
    async with connect("stdio", "legacy", data_dir, config={"objects": {"threshold_bytes": 1024}}) as client:
        answer = await big_search(client)
        assert answer["truncated"] and answer["object"]["size_bytes"] > 1024
        got = structured(await client.call_tool("object_get", {"ref": answer["object"]["ref"] + ".query"}))
        assert got["value"] == "cable"
