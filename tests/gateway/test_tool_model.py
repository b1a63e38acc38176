"""tool_search embeds with the packaged MiniLM run in int8 arithmetic: the same meaning, its own vectors.

The server's tools and queries go through the rewritten model (``gateway/int8_graph.py``); passages keep
the exact model. These tests check the rewrite against the exact model on the real packaged weights, that
the server uses it end to end through MCP, and that a model of another shape is refused, not misrun.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from mcp import Client

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from deepr_mcp.embedding import shared_embedder
from deepr_mcp.gateway.int8_graph import GraphRewriteError, _bytes_field, _node, int8_matmul_model
from deepr_mcp.gateway.tool_model import Int8MiniLM, tool_embedder
from tests.gateway.embedders import Counting
from tests.gateway.test_meaning import RAIN, RAIN_QUESTION, embedded, search

KILN = [
    "Fire the kiln slowly so the glaze does not crack.",
    "Record each firing's peak temperature in the log.",
    "Unload the shelves once the kiln has cooled below fifty degrees.",
    "Order more clay before the studio runs out.",
]


def test_the_int8_form_means_what_the_exact_model_means() -> None:
    exact = shared_embedder("minilm")
    fast = tool_embedder(exact)
    assert isinstance(fast, Int8MiniLM) and fast.name != exact.name, "its vectors are cached under their own name"
    a, b = exact.embed(KILN), fast.embed(KILN)
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    assert (np.einsum("ij,ij->i", a, b) > 0.97).all()
    assert not np.array_equal(a, b), "the int8 products give (slightly) other vectors"
    for query in ("when is it safe to take the pots out", "write down how hot it got"):
        near_exact = int(np.argmax(a @ exact.embed([query], query=True)[0]))
        near_fast = int(np.argmax(b @ fast.embed([query], query=True)[0]))
        assert near_exact == near_fast


def test_another_embedder_is_used_as_it_is() -> None:
    mine = Counting()
    assert tool_embedder(mine) is mine


async def test_the_server_finds_tools_by_meaning_with_the_int8_form(tmp_path: Path) -> None:
    async with Root(Settings(data_dir=tmp_path)) as root:
        root.registry.register(RAIN)
        await embedded(root)
        assert root.registry.vectors is not None and isinstance(root.registry.vectors.embedder, Int8MiniLM)
        async with Client(build_server(root), mode="legacy") as client:
            assert (await search(client, RAIN_QUESTION))[0] == RAIN.name
    assert [p.name for p in (tmp_path / "tool-vectors").glob("*.npz")] == [
        "all-MiniLM-L6-v2-int8_1.0.0_int8-matmul.npz"
    ]


def test_a_model_of_another_shape_is_refused() -> None:
    with pytest.raises(GraphRewriteError):
        int8_matmul_model(b"\x3a\x05ab")  # a graph field cut short
    graph = _bytes_field(1, _node("MatMul", ["x", "w"], ["y"], "plain"))  # float weights: nothing to rewrite
    with pytest.raises(GraphRewriteError, match="no int8-stored weight"):
        int8_matmul_model(_bytes_field(7, graph))


def test_a_text_gets_the_same_vector_whatever_it_is_embedded_with() -> None:
    fast = tool_embedder(shared_embedder("minilm"))
    alone = np.stack([fast.embed([text])[0] for text in KILN])
    assert np.array_equal(fast.embed(KILN), alone), "a tool's vector must not depend on the tools beside it"
