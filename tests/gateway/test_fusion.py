"""How the registry fuses words and meaning: scores, filters, tools not embedded yet, the embedded text."""

from __future__ import annotations

from deepr_mcp.gateway import ToolRegistry, ToolSpec
from deepr_mcp.gateway.vectors import ToolVectors, first_sentence, text_key, tool_text
from tests.gateway.embedders import Counting, Gated


def spec(name: str, description: str, category: str = "misc", **params: str) -> ToolSpec:
    props = {k: {"type": "string", "description": v} for k, v in params.items()}
    return ToolSpec(name, description, {"type": "object", "properties": props}, category=category)


TOOLS = [
    spec("invoice_send", "Send an invoice to a customer by email.", "billing", customer="who pays"),
    spec("ticket_open", "Open a support ticket for a problem report.", "support", title="short summary"),
    spec("calendar_add", "Add an event to the team calendar.", "planning", when="date and time"),
    spec("weather_today", "Tell today's forecast for a city.", "planning", city="where"),
]


def embedded(specs: list[ToolSpec]) -> ToolRegistry:
    vectors = ToolVectors(Counting())
    registry = ToolRegistry(specs, vectors=vectors)
    assert vectors.wait_idle(60)
    return registry


def test_fused_scores_are_bounded_and_a_clear_word_match_comes_first() -> None:
    registry = embedded(TOOLS)
    hits = registry.search("send the invoice to the customer", 4)
    assert hits[0].name == "invoice_send"
    assert all(0 < h.score <= 1 for h in hits)
    assert hits[0].score > hits[1].score


def test_hybrid_fills_the_limit_by_meaning_where_words_find_nothing() -> None:
    registry = embedded(TOOLS)
    assert registry.search("rentasol dunoire", 3, mode="lexical") == []
    assert len(registry.search("rentasol dunoire", 3)) == 3  # every embedded tool has a cosine with the query


def test_a_filter_keeps_other_tools_out_of_the_fused_ranking() -> None:
    registry = embedded(TOOLS)
    found = registry.search("send the invoice to the customer", 4, category="planning")
    assert {h.name for h in found} == {"calendar_add", "weather_today"}
    assert registry.search("send an invoice", 4, source="nobody") == []


def test_a_tool_not_embedded_yet_is_ranked_by_its_words_meanwhile() -> None:
    gated = Gated()
    vectors = ToolVectors(gated)
    vectors.add([text_key(tool_text(s)) for s in TOOLS], Counting().embed([tool_text(s) for s in TOOLS]))
    registry = ToolRegistry(TOOLS, vectors=vectors)
    assert vectors.pending() == 0
    fresh = spec("parcel_track", "Track a parcel shipment by its tracking number.", number="tracking code")
    registry.register(fresh)
    try:
        assert vectors.pending() == 1 or not vectors.wait_idle(0)
        hits = registry.search("track my parcel shipment", 3)
        assert hits[0].name == "parcel_track"
        assert hits[0].score == 1.0  # best by words, and its words stand in for its meaning
    finally:
        gated.release.set()
    assert vectors.wait_idle(60)
    assert registry.search("track my parcel shipment", 1)[0].name == "parcel_track"


def test_the_embedded_text_is_the_name_title_and_first_sentence() -> None:
    long = spec(
        "geo.locate_address",
        "Convert an address to coordinates, e.g. a street and city. Handles typos.\n\nArgs:\n  address: any text",
        address="the address",
    )
    assert tool_text(long) == "geo locate address. Convert an address to coordinates, e.g. a street and city."
    assert first_sentence("First line\n\nSecond paragraph.") == "First line"
    assert first_sentence("获取热榜。包含话题") == "获取热榜。"
    assert first_sentence("  One sentence only  ") == "One sentence only"
    assert tool_text(spec("x_y", "")) == "x y"


def test_two_near_twins_score_alike_in_a_small_catalogue() -> None:
    """Each half is relative to its best: a hair's difference in cosine stays a hair in the score."""
    twins = [spec("alpha_tool", "Same words here."), spec("beta_tool", "Same words here.")]
    registry = embedded(twins)
    hits = registry.search("same words", 2)
    assert [h.name for h in hits] == [h.name for h in registry.search("same words", 2)]
    assert abs(hits[0].score - hits[1].score) < 0.05
