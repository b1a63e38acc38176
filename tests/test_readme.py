"""The README's tool catalogue table is exactly what the registry holds."""

from __future__ import annotations

import re
from pathlib import Path

from deepr_mcp.cli import catalogue_table
from deepr_mcp.gateway import ToolRegistry
from deepr_mcp.tools import all_tools

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_catalogue_matches_the_registry() -> None:
    text = README.read_text()
    match = re.search(r"<!-- catalogue:start -->\n(.*?)\n<!-- catalogue:end -->", text, re.S)
    assert match, "README lost its catalogue markers"
    assert match.group(1).strip() == catalogue_table(ToolRegistry(all_tools())).strip(), (
        "README catalogue is stale: regenerate it with `deepr-mcp tools list --markdown`"
    )
