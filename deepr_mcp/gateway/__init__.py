"""Progressive discovery: a BM25 tool registry and the gateway tools that search and call it."""

from deepr_mcp.gateway.registry import ToolRegistry
from deepr_mcp.gateway.spec import SearchHit, ToolSpec, define_tool

__all__ = ["SearchHit", "ToolRegistry", "ToolSpec", "define_tool"]
