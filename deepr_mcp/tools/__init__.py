"""The research tool catalogue: thin handlers grouped by domain, each from a pydantic model."""

from __future__ import annotations

from deepr_mcp.gateway.spec import ToolSpec
from deepr_mcp.tools import budget, campaigns, catalogue, corpus, experts, objects, sandbox, web


def all_tools() -> list[ToolSpec]:
    """Every catalogue tool, in a fresh list (the registry owns what it is given)."""
    return [
        *catalogue.TOOLS,
        *campaigns.TOOLS,
        *budget.TOOLS,
        *corpus.TOOLS,
        *sandbox.TOOLS,
        *web.TOOLS,
        *experts.TOOLS,
        *objects.TOOLS,
    ]


__all__ = ["all_tools"]
