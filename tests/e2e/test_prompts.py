"""Prompts a person can pick: listed with their arguments, rendered, and refused when misused."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from tests.clients import connect


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_prompts(era: str, data_dir: Path) -> None:
    async with connect("inproc", era, data_dir) as client:
        assert client.server_capabilities.prompts is not None
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        assert set(prompts) == {"research", "follow_campaign", "decide_budget", "expert_brief"}
        assert [a.name for a in prompts["research"].arguments] == ["question", "budget"]
        assert prompts["research"].arguments[0].required and prompts["research"].title
        research = await client.get_prompt("research", {"question": "Why did the 1858 cable fail?", "budget": "0.5"})
        text = research.messages[0].content.text
        assert "Why did the 1858 cable fail?" in text and "campaign_wait" in text and "budget_decide" in text
        follow = await client.get_prompt("follow_campaign", {"campaign_id": "c123"})
        assert "c123" in follow.messages[0].content.text
        with pytest.raises(MCPError, match="needs question"):
            await client.get_prompt("research", {})
        with pytest.raises(MCPError, match="unknown prompt"):
            await client.get_prompt("nope", {})
        with pytest.raises(MCPError, match="unknown argument"):
            await client.get_prompt("decide_budget", {"campaign_id": "c1", "extra": "x"})
        assert (await client.list_prompts()).prompts  # still serving
