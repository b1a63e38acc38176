"""Following the API names of the best passages to their reference entries (how-tos)."""

from __future__ import annotations

from deepr_mcp.research.follow import API_NAME


def test_api_names_are_dotted_names_not_example_variables_or_abbreviations() -> None:
    text = "Use os.walk() or shutil.copy2; t.tzname is an example variable, e.g. this, and mod.sub.func too."
    assert API_NAME.findall(text) == ["os.walk", "shutil.copy2", "mod.sub.func"]
