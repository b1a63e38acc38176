"""The benchmark's query set stays in step with the catalogue, and search quality stays useful."""

from __future__ import annotations

from bench.queries import QUERIES
from deepr_mcp.gateway import ToolRegistry
from deepr_mcp.tools import all_tools


def test_every_tool_has_three_user_queries() -> None:
    names = {spec.name for spec in all_tools()}
    assert set(QUERIES) == names
    assert all(len(queries) >= 3 for queries in QUERIES.values())


def test_recall_at_3_is_useful() -> None:
    registry = ToolRegistry(all_tools())
    pairs = [(tool, q) for tool, queries in QUERIES.items() for q in queries]
    found = sum(tool in [h.name for h in registry.search(q, 3)] for tool, q in pairs)
    assert found / len(pairs) >= 0.75
