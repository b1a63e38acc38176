"""Experts through the gateway: created, fed by campaigns, queried with citations, gaps filled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from tests.campaigns import follow
from tests.clients import call, connect, text_of


async def test_expert_lifecycle(data_dir: Path) -> None:
    async with connect("inproc", "legacy", data_dir) as client:
        created = await call(
            client,
            "expert_create",
            {
                "name": "Submarine cables",
                "description": "History and engineering of undersea cables",
                "question": "Why did the first transatlantic telegraph cable fail, and what do penguins eat?",
            },
        )
        eid = created["expert"]["id"]
        await follow(client, created["campaign"]["campaign_id"])

        profile = await call(client, "expert_profile", {"expert_id": eid})
        assert profile["belief_count"] > 0 and profile["campaigns"] == [created["campaign"]["campaign_id"]]
        answer = await call(client, "expert_query", {"expert_id": eid, "question": "Why did the 1858 cable fail?"})
        assert not answer["is_gap"] and "[1]" in answer["answer"]
        assert answer["sources"][0]["source"].endswith(".md")
        unknown = await call(client, "expert_query", {"expert_id": eid, "question": "What do penguins eat?"})
        assert unknown["is_gap"] and unknown["suggestion"]["tool"] == "expert_fill_gaps"
        gaps = (await call(client, "expert_gaps", {"expert_id": eid}))["gaps"]
        assert any("penguins" in g["question"] for g in gaps)

        filled = await call(
            client, "expert_fill_gaps", {"expert_id": eid, "questions": ["How are cable faults repaired?"]}
        )
        await follow(client, filled["campaign_id"])
        profile_after = await call(client, "expert_profile", {"expert_id": eid})
        assert profile_after["belief_count"] > profile["belief_count"] and len(profile_after["campaigns"]) == 2

        listed = await call(client, "expert_list", {})
        assert [e["expert_id"] for e in listed["experts"]] == [eid]
        resource = json.loads((await client.read_resource(f"deepr://experts/{eid}/profile")).contents[0].text)
        assert resource["name"] == "Submarine cables"
        beliefs = json.loads((await client.read_resource(f"deepr://experts/{eid}/beliefs")).contents[0].text)
        assert beliefs["beliefs"] and all(b["sources"] for b in beliefs["beliefs"])
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert "deepr://experts/{id}/gaps" in templates

        duplicate = await client.call_tool(
            "tool_call", {"name": "expert_create", "arguments": {"name": "Submarine cables"}}
        )
        assert duplicate.is_error and "you already have an expert named" in text_of(duplicate)
        await call(client, "expert_delete", {"expert_id": eid})
        for name, args, expected in [
            ("expert_profile", {"expert_id": eid}, "no expert"),
            ("expert_query", {"expert_id": eid, "question": "anything at all?"}, "no expert"),
            ("expert_create", {"name": "x"}, "name"),
            ("expert_create", {"name": "bad/name<>"}, "expert name"),
        ]:
            result = await client.call_tool("tool_call", {"name": name, "arguments": args})
            assert result.is_error and expected in text_of(result), (name, text_of(result))
        with pytest.raises(MCPError, match="not found"):
            await client.read_resource(f"deepr://experts/{eid}/profile")
        assert (await call(client, "expert_list", {}))["experts"] == []  # deleted; the connection keeps serving
