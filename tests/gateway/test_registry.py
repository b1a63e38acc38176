"""ToolRegistry's public API (outside checks import it) and its ranking behaviour."""

from __future__ import annotations

import pytest

from deepr_mcp.gateway import SearchHit, ToolRegistry, ToolSpec
from deepr_mcp.tools import all_tools


def spec(name: str, description: str, **props: str) -> ToolSpec:
    schema = {"type": "object", "properties": {k: {"type": "string", "description": v} for k, v in props.items()}}
    return ToolSpec(name, description, schema)


def test_public_api_shape() -> None:
    registry = ToolRegistry()
    registry.register(ToolSpec("campaign_start", "Start a research campaign.", {"type": "object"}))
    registry.register_many([spec("campaign_cancel", "Cancel a campaign."), spec("sandbox_read", "Read a file.")])
    assert len(registry) == 3
    assert registry.get("campaign_start").category == "general"
    assert registry.get("missing") is None
    hits = registry.search("start a research campaign", limit=3)
    assert isinstance(hits[0], SearchHit)
    assert (hits[0].name, hits[0].spec.name) == ("campaign_start", "campaign_start")
    assert hits[0].score > 0
    registry.unregister("campaign_start")
    registry.unregister("never-registered")  # no error
    assert len(registry) == 2
    assert all(h.name != "campaign_start" for h in registry.search("start campaign"))


def test_naive_split_misses_snake_case_but_tokenizer_finds_it() -> None:
    registry = ToolRegistry([spec("campaign_start", "Begins work."), spec("expert_query", "Ask an expert.")])
    assert registry.search("start a campaign")[0].name == "campaign_start"


def test_camel_case_and_parameter_text_are_indexed() -> None:
    registry = ToolRegistry(
        [
            spec("getWeatherForecast", "Returns a forecast."),
            spec("lookup", "Generic lookup.", postal_code="Postal code of the city"),
        ]
    )
    assert registry.search("weather")[0].name == "getWeatherForecast"
    assert registry.search("postal code")[0].name == "lookup"


def test_name_is_weighted_over_description() -> None:
    registry = ToolRegistry(
        [spec("budget_get", "Show the limit."), spec("other_tool", "Mentions budget once in a long sentence.")]
    )
    assert registry.search("budget")[0].name == "budget_get"


def test_ties_are_ordered_by_name() -> None:
    registry = ToolRegistry([spec(f"tool_{c}", "identical words here") for c in "dcab"])
    assert [h.name for h in registry.search("identical words", limit=4)] == ["tool_a", "tool_b", "tool_c", "tool_d"]


def test_no_shared_term_means_no_hit() -> None:
    registry = ToolRegistry([spec("campaign_start", "Start a campaign.")])
    assert registry.search("zebra") == []
    assert registry.search("the of and") == []  # only stop words
    assert registry.search("campaign", limit=0) == []


def test_index_is_rebuilt_lazily_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from deepr_mcp.gateway import registry as module

    builds = []
    real = module.BM25Index

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, corpus: list[list[str]], **options: float) -> None:
            builds.append(len(corpus))
            super().__init__(corpus, **options)

    monkeypatch.setattr(module, "BM25Index", Counting)
    registry = ToolRegistry()
    for i in range(500):
        registry.register(spec(f"tool_{i}", f"does thing number {i}"))
    assert builds == []
    registry.search("thing")
    registry.search("number")
    assert builds == [500]
    registry.register(spec("late", "a late thing"))
    registry.search("late")
    assert builds == [500, 501]


def test_closest_names_suggests_spelling_then_meaning() -> None:
    registry = ToolRegistry([spec("campaign_start", "Start a campaign."), spec("campaign_status", "Show status.")])
    assert registry.closest_names("campaign_strat")[0] == "campaign_start"
    assert "campaign_status" in registry.closest_names("status_of_campaign")


@pytest.mark.parametrize("bad", ["", "has space", "x" * 65, "slash/name", "ümlaut"])
def test_invalid_names_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="invalid tool name"):
        ToolRegistry().register(spec(bad, "x"))


def test_real_catalogue_specs_are_well_formed() -> None:
    registry = ToolRegistry(all_tools())
    for tool in registry:
        assert tool.handler is not None and tool.input_model is not None
        assert tool.input_schema["type"] == "object"
        assert len(tool.description) >= 40, f"{tool.name} needs a description an agent can choose by"
