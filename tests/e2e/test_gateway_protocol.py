"""The gateway as clients see it: every transport, both protocol eras, every gateway mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients import HANDSHAKE_VERSION, MODERN_VERSION, Recorder, connect, structured, text_of

TRANSPORTS = ["inproc", "stdio", "http"]
ERAS = ["legacy", "modern"]
MODES = ["proxy", "search", "full"]

INITIAL = {"proxy": ["tool_search", "tool_call"], "search": ["tool_search"]}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_gateway_scenario(transport: str, era: str, mode: str, data_dir: Path) -> None:
    recorder = Recorder()
    async with connect(transport, era, data_dir, gateway_mode=mode, message_handler=recorder) as client:
        assert client.protocol_version == (MODERN_VERSION if era == "modern" else HANDSHAKE_VERSION)
        assert "tool_search" in (client.instructions or "")

        # The initial list is what the mode promises.
        first = [t.name for t in (await client.list_tools()).tools]
        if mode == "full":
            assert {"tool_search", "tool_call", "server_info", "catalogue_list"} <= set(first)
        else:
            assert first == INITIAL[mode]

        # Search ranks, returns full schemas, and reveals to this connection.
        found = await client.call_tool("tool_search", {"query": "which server version and gateway mode"})
        assert not found.is_error, text_of(found)
        hits = structured(found)["hits"]
        assert hits[0]["name"] == "server_info"
        assert hits[0]["inputSchema"]["type"] == "object"

        listed = [t.name for t in (await client.list_tools()).tools]
        if era == "legacy" and mode != "full":
            assert "server_info" in listed
            assert recorder.saw("notifications/tools/list_changed")
        if era == "modern":
            assert listed == first  # one-shot requests: nothing to reveal to
            assert not recorder.saw("notifications/tools/list_changed")

        # A revealed tool is callable directly, a hidden one by name and through tool_call.
        info = await client.call_tool("server_info", {})
        assert not info.is_error and structured(info)["gateway_mode"] == mode
        hidden = await client.call_tool("catalogue_list", {})
        assert not hidden.is_error and structured(hidden)["total"] >= 2
        proxied = await client.call_tool("tool_call", {"name": "catalogue_list", "arguments": {}})
        assert not proxied.is_error
        assert structured(proxied) == structured(hidden)  # the target's result, unchanged


async def test_claude_desktop_like_client_never_relists(data_dir: Path) -> None:
    """Reads tools/list once (as Claude Desktop does), then works only through the gateway."""
    async with connect("stdio", "legacy", data_dir) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert names == ["tool_search", "tool_call"]
        found = structured(await client.call_tool("tool_search", {"query": "browse all tools by category"}))
        target = found["hits"][0]["name"]
        assert target == "catalogue_list"
        result = await client.call_tool("tool_call", {"name": target, "arguments": {"category": "catalogue"}})
        assert not result.is_error
        assert {t["name"] for t in structured(result)["tools"]} >= {"catalogue_list", "server_info"}


BAD_CALLS = [
    ("tool_search", {"query": ""}, "query"),
    ("tool_search", {"query": "   \n\t "}, "must contain words"),
    ("tool_search", {"query": "x" * 2001}, "at most 2000"),
    ("tool_search", {"query": "campaign", "limit": 0}, "greater than or equal to 1"),
    ("tool_search", {"query": "campaign", "limit": 21}, "less than or equal to 20"),
    ("tool_search", {"query": "campaign", "limit": "three"}, "limit"),
    ("tool_search", {"query": 42}, "valid string"),
    ("tool_search", {}, "query: required"),
    ("tool_search", {"query": "campaign", "format": "xml"}, "format"),
    ("tool_search", {"query": "campaign", "bogus": 1}, "bogus: unknown argument"),
    ("no_such_tool", {}, "unknown tool 'no_such_tool'"),
    ("server_infoo", {}, "Did you mean: server_info"),
    ("tool_call", {"name": "server_infoo", "arguments": {}}, "Did you mean: server_info"),
    ("tool_call", {"arguments": {}}, "name: required"),
    ("tool_call", {"name": "catalogue_list", "arguments": {"category": 7}}, "category: Input should be a valid string"),
    ("tool_call", {"name": "catalogue_list", "arguments": {"nope": 1}}, "nope"),
    ("tool_call", {"name": "catalogue_list", "arguments": "not an object"}, "arguments"),
    ("tool_call", {"name": "tool_search", "arguments": {"query": "x"}}, "call tool_search directly"),
    ("catalogue_list", {"category": "no-such-category"}, "categories are"),
]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_bad_inputs_get_clear_errors_and_server_keeps_serving(transport: str, era: str, data_dir: Path) -> None:
    async with connect(transport, era, data_dir) as client:
        for name, arguments, expected in BAD_CALLS:
            result = await client.call_tool(name, arguments)
            assert result.is_error, (name, arguments)
            assert expected in text_of(result), (name, arguments, text_of(result))
            assert "Traceback" not in text_of(result)
        ok = await client.call_tool("tool_search", {"query": "server version", "format": "markdown"})
        assert not ok.is_error and "server_info" in text_of(ok)
