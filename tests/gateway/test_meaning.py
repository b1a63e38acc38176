"""tool_search by meaning: the packaged embedder finds a tool described in other words, through MCP.

The server runs in-process with its real default embedder (MiniLM, packaged); tests wait for the
background embedding to finish (an event with a generous guard), never for a time.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import numpy as np
from mcp import Client

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from deepr_mcp.gateway import ToolRegistry, ToolSpec
from deepr_mcp.gateway.vectors import ToolVectors, text_key, tool_text
from deepr_mcp.text.tokenizer import expand_query, tokenize
from tests.clients import structured
from tests.gateway.embedders import Counting
from tests.upstreams.upstream_servers import fixture_upstream

RAIN = ToolSpec(
    "umbrella_check",
    "Tells whether rain is expected today so you know to take an umbrella.",
    {"type": "object", "properties": {"city": {"type": "string"}}},
)
RAIN_QUESTION = "should I bring a raincoat tomorrow"


async def embedded(root: Root) -> None:
    vectors = root.registry.vectors
    assert vectors is not None
    assert await anyio.to_thread.run_sync(vectors.wait_idle, 300), "tool vectors never finished embedding"


async def search(client: Client, query: str, limit: int = 3) -> list[str]:
    found = structured(await client.call_tool("tool_search", {"query": query, "limit": limit}))
    return [hit["name"] for hit in found["hits"]]


async def test_a_tool_described_in_other_words_is_found_by_meaning(tmp_path: Path) -> None:
    words = set(expand_query(tokenize(RAIN_QUESTION)))
    assert words.isdisjoint(tokenize(tool_text(RAIN))), "the question must share no word with the tool"
    async with Root(Settings(data_dir=tmp_path)) as root:
        root.registry.register(RAIN)
        await embedded(root)
        assert RAIN.name not in [h.name for h in root.registry.search(RAIN_QUESTION, 20, mode="lexical")]
        async with Client(build_server(root), mode="legacy") as client:
            assert (await search(client, RAIN_QUESTION))[0] == RAIN.name
            assert (await search(client, "start a research campaign"))[0] == "campaign_start"  # words still count
    assert any((tmp_path / "tool-vectors").glob("*.npz")), "the vectors are cached for the next start"


async def test_restart_takes_the_vectors_from_the_cache(tmp_path: Path) -> None:
    async with Root(Settings(data_dir=tmp_path)) as root:
        await embedded(root)
        count = root.registry.vectors.stored  # type: ignore[union-attr]
        model = root.registry.vectors.embedder.name  # type: ignore[union-attr]
    cached = ToolVectors(Refusing(model), tmp_path / "tool-vectors")  # would fail if asked to embed anything
    registry = ToolRegistry(list(root.registry), vectors=cached)
    assert cached.pending() == 0
    assert cached.stored == count == len(registry)


class Refusing:
    """An embedder that must not be called: it names the model the server embedded the tools with."""

    dimensions = 384

    def __init__(self, name: str) -> None:
        self.name = name

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        raise AssertionError(f"asked to embed {len(texts)} texts")


async def test_words_alone_when_the_embedder_is_off(tmp_path: Path) -> None:
    async with Root(Settings(data_dir=tmp_path, research={"embedder": "none"})) as root:
        assert root.registry.vectors is None
        root.registry.register(RAIN)
        async with Client(build_server(root), mode="legacy") as client:
            assert (await search(client, "start a research campaign"))[0] == "campaign_start"
            found = structured(await client.call_tool("tool_search", {"query": RAIN_QUESTION}))
            assert found["hits"] == []
            assert "No tool matched" in found["hint"]
            assert (await search(client, "will it rain, do I need an umbrella"))[0] == RAIN.name
    assert not (tmp_path / "tool-vectors").exists()


async def test_upstream_tools_join_the_vector_index(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, gateway={"mode": "proxy"}, upstreams=[fixture_upstream()])
    async with Root(settings) as root:
        async with Client(build_server(root), mode="legacy") as client:
            await search(client, "echo the given text back")  # waits for the upstream's first listing
            picture = root.registry.get("fx_picture")
            assert picture is not None and picture.upstream == "fx"
            await embedded(root)
            vectors = root.registry.vectors
            assert vectors is not None and vectors.positions([text_key(tool_text(picture))])[0] >= 0
            query = "give me a tiny image with a label"
            assert "fx_picture" not in [h.name for h in root.registry.search(query, 20, mode="lexical")]
            assert "fx_picture" in await search(client, query)


def test_a_registry_without_vectors_ranks_as_before() -> None:
    plain = ToolRegistry([RAIN])
    assert plain.vectors is None
    assert plain.search(RAIN_QUESTION, 3) == []
    assert plain.search(RAIN_QUESTION, 3, mode="semantic") == []
    assert [h.name for h in plain.search("umbrella for the rain", 3)] == [RAIN.name]


def test_only_a_query_not_embedded_before_needs_the_model() -> None:
    """The server runs such a search in a worker thread; a cached query or words alone stay on the loop."""
    vectors = ToolVectors(Counting())
    registry = ToolRegistry([RAIN], vectors=vectors)
    assert vectors.wait_idle(60)
    assert registry.needs_model(RAIN_QUESTION)
    assert not registry.needs_model(RAIN_QUESTION, mode="lexical")
    assert not registry.needs_model("   ")
    registry.search(RAIN_QUESTION)
    assert not registry.needs_model(RAIN_QUESTION)  # its vector is cached now
    assert registry.needs_model("something else entirely")
    assert not ToolRegistry([RAIN]).needs_model(RAIN_QUESTION)  # no vectors attached


def test_vectors_kept_for_tools_no_longer_listed_change_no_ranking() -> None:
    """A cache holding many more vectors than the catalogue has tools (earlier catalogues' tools, loaded
    at start) ranks exactly as a store holding the catalogue's own: the registry scores a copy of its
    own rows then, not every stored one."""
    specs = [
        RAIN,
        ToolSpec("wind_gauge", "Reads the wind speed at the airport.", {"type": "object"}),
        ToolSpec("snow_depth", "Measures fresh snow on the mountain pass.", {"type": "object"}),
    ]
    lean = ToolVectors(Counting())
    lean_registry = ToolRegistry(specs, vectors=lean)
    crowded = ToolVectors(Counting())
    stale = [f"an old federated tool number {n} that is gone" for n in range(40)]
    crowded.add([text_key(t) for t in stale], Counting().embed(stale))
    crowded_registry = ToolRegistry(specs, vectors=crowded)
    assert lean.wait_idle(60) and crowded.wait_idle(60)
    assert crowded.stored > 2 * len(specs)  # mostly vectors of tools no longer listed
    for query in (RAIN_QUESTION, "how windy is it", "snow on the road", "old federated tool"):
        for mode in ("semantic", "hybrid"):
            want = [(h.name, round(h.score, 6)) for h in lean_registry.search(query, 3, mode=mode)]
            got = [(h.name, round(h.score, 6)) for h in crowded_registry.search(query, 3, mode=mode)]
            assert got == want, (query, mode)
    positions = crowded_registry._positions
    assert positions is not None and len(positions[3]) == len(specs)  # the catalogue's own rows were scored
    lean_positions = lean_registry._positions
    assert lean_positions is not None and len(lean_positions[3]) == lean.stored  # the store's own, no copy
