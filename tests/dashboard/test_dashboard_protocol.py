"""The MCP Apps dashboard through the protocol: first tools/list, the ui:// resource, the research tool.

A client announcing the ``io.modelcontextprotocol/ui`` extension gets ``research`` (carrying
``_meta.ui.resourceUri``) and the app-only helpers in its first list; every other client's list
and answers stay exactly as before.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mcp.client.extension import advertise
from mcp.shared.exceptions import MCPError

from deepr_mcp.dashboard import APP_HELPERS, EXTENSION_ID, MIME_TYPE, UI_URI
from tests.campaigns import QUESTION
from tests.clients import connect, structured, text_of

pytestmark = pytest.mark.anyio

UI_CLIENT = {"extensions": [advertise(EXTENSION_ID, {"mimeTypes": [MIME_TYPE]})]}


def by_name(tools: list[Any]) -> dict[str, Any]:
    return {tool.name: tool for tool in tools}


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_first_list_of_an_apps_client_carries_the_dashboard(era: str, data_dir: Path) -> None:
    async with connect("inproc", era, data_dir, **UI_CLIENT) as client:
        tools = by_name((await client.list_tools()).tools)
    assert {"tool_search", "tool_call", "research"} <= set(tools)
    assert tools["research"].meta["ui"]["resourceUri"] == UI_URI
    assert tools["research"].meta["ui/resourceUri"] == UI_URI  # the older key some hosts still read
    assert "visibility" not in tools["research"].meta["ui"]  # the model sees it
    for name in APP_HELPERS:
        assert tools[name].meta == {"ui": {"visibility": ["app"]}}, name
    assert "campaign_start" not in tools  # the catalogue stays behind the gateway


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_client_without_apps_sees_todays_list(era: str, data_dir: Path) -> None:
    async with connect("inproc", era, data_dir) as client:
        tools = (await client.list_tools()).tools
        resources = (await client.list_resources()).resources
    assert [t.name for t in tools] == ["tool_search", "tool_call"]
    assert all(t.meta is None for t in tools)
    assert UI_URI in {str(r.uri) for r in resources}  # listed, harmless: a plain client never renders it


async def test_full_mode_keeps_helpers_visible_to_the_model(data_dir: Path) -> None:
    async with connect("inproc", "legacy", data_dir, gateway_mode="full", **UI_CLIENT) as client:
        listed = (await client.list_tools()).tools
    tools = by_name(listed)
    assert tools["research"].meta["ui"]["resourceUri"] == UI_URI
    assert tools["campaign_wait"].meta is None  # listed once, as the catalogue tool the model may call
    assert [t.name for t in listed].count("campaign_wait") == 1


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_the_view_resource_is_self_contained_html(era: str, data_dir: Path) -> None:
    async with connect("inproc", era, data_dir, **UI_CLIENT) as client:
        listed = {str(r.uri): r for r in (await client.list_resources()).resources}
        read = await client.read_resource(UI_URI)
    assert listed[UI_URI].mime_type == MIME_TYPE
    (content,) = read.contents
    assert content.mime_type == MIME_TYPE
    csp = content.meta["ui"]["csp"]
    assert csp == {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []}
    html = content.text
    assert "connect-src 'none'" in html and "default-src 'none'" in html
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=\"?(https?:)?//", html)
    assert '<script type="module">' in html  # the bundle is inline


async def test_apps_off_restores_todays_server(data_dir: Path) -> None:
    async with connect("inproc", "legacy", data_dir, config={"apps": {"enabled": False}}, **UI_CLIENT) as client:
        tools = (await client.list_tools()).tools
        resources = (await client.list_resources()).resources
        research = await client.call_tool("research", {"question": QUESTION})
        with pytest.raises(MCPError):
            await client.read_resource(UI_URI)
    assert [t.name for t in tools] == ["tool_search", "tool_call"]
    assert UI_URI not in {str(r.uri) for r in resources}
    assert research.is_error and "unknown tool 'research'" in text_of(research)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_research_starts_and_opens_a_campaign(era: str, data_dir: Path) -> None:
    async with connect("inproc", era, data_dir, **UI_CLIENT) as client:
        started = await client.call_tool("research", {"question": QUESTION, "budget": 2})
        assert not started.is_error, text_of(started)
        body = structured(started)
        assert body["question"] == QUESTION and body["view"] == UI_URI and body["budget"] == 2
        opened = await client.call_tool("research", {"campaign_id": body["campaign_id"]})
        assert not opened.is_error, text_of(opened)
        assert structured(opened)["question"] == QUESTION
        assert structured(opened)["status"]["id"] == body["campaign_id"]


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({}, "either question (to start a campaign) or campaign_id (to open one), not neither"),
        ({"question": QUESTION, "campaign_id": "abc"}, "not both"),
        ({"campaign_id": "no-such-campaign"}, "no-such-campaign"),
        ({"campaign_id": "../etc"}, "campaign_id: String should match pattern"),
        ({"question": QUESTION, "budget": -1}, "budget: Input should be greater than 0"),
        ({"question": QUESTION, "budget": "ten"}, "budget: Input should be a valid number"),
        ({"question": QUESTION, "colour": "red"}, "colour: unknown argument"),
    ],
)
async def test_research_refuses_bad_input_clearly(arguments: dict[str, Any], says: str, data_dir: Path) -> None:
    async with connect("inproc", "legacy", data_dir, **UI_CLIENT) as client:
        result = await client.call_tool("research", arguments)
    assert result.is_error
    assert says in text_of(result)
