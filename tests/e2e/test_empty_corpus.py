"""No surprises: an empty corpus refuses campaigns and says how to add documents; nothing is added unasked.

The bundled sample goes in only when asked for (corpus_add with sample=true), which works over HTTP
without corpus roots because it reads the package's own files, not the server's disk.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.campaigns import QUESTION
from tests.clients import call, connect, text_of

WAYS = ["corpus is empty", "corpus_add with a path", "deepr-mcp corpus add PATH", "sample=true", "corpus roots"]


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_campaign_start_on_an_empty_corpus_is_refused_and_adds_nothing(era: str, empty_data_dir: Path) -> None:
    async with connect("http", era, empty_data_dir) as client:
        for name, arguments in [
            ("campaign_start", {"question": QUESTION}),
            ("campaign_start", {"question": QUESTION, "budget": 0.5, "max_sub_questions": 2}),
        ]:
            result = await client.call_tool("tool_call", {"name": name, "arguments": arguments})
            assert result.is_error and "Traceback" not in text_of(result)
            for way in WAYS:
                assert way in text_of(result), (way, text_of(result))
        assert (await call(client, "corpus_list", {}))["documents"] == 0  # nothing was added behind our back
        assert (await call(client, "campaign_list", {}))["total"] == 0  # and nothing was started
        searched = await call(client, "corpus_search", {"query": "telegraph cable"})
        assert searched["hits"] == [] and "sample=true" in searched["note"]
        assert (await call(client, "corpus_list", {}))["documents"] == 0  # searching adds nothing either


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_asking_for_the_sample_over_http_then_research_works(era: str, empty_data_dir: Path) -> None:
    async with connect("http", era, empty_data_dir) as client:
        found = await client.call_tool("tool_search", {"query": "add the bundled sample corpus", "limit": 3})
        assert "corpus_add" in [h["name"] for h in (found.structured_content or {})["hits"]]
        added = await call(client, "corpus_add", {"sample": True})
        assert added["added"] == 6 and added["failed"] == []
        again = await call(client, "corpus_add", {"sample": True})
        assert again["added"] == 0 and again["unchanged"] == 6  # asking twice changes nothing
        started = await call(client, "campaign_start", {"question": QUESTION})
        assert started["campaign_id"]


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({}, "needs a path"),
        ({"sample": True, "path": "/etc"}, "not both"),
        ({"sample": "yes please"}, "sample"),
        ({"sample": None}, "sample"),
    ],
)
async def test_corpus_add_needs_exactly_one_of_path_or_sample(arguments: dict, says: str, empty_data_dir: Path) -> None:
    async with connect("inproc", "legacy", empty_data_dir) as client:
        result = await client.call_tool("tool_call", {"name": "corpus_add", "arguments": arguments})
        assert result.is_error and says in text_of(result) and "Traceback" not in text_of(result)
        assert (await call(client, "corpus_list", {}))["documents"] == 0
