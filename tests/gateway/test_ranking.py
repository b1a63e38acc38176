"""Annotations on every tool, ranking that knows what a tool does, filters, and the fast index's scores."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from deepr_mcp.gateway import ToolRegistry, ToolSpec
from deepr_mcp.gateway.index import BM25Index
from deepr_mcp.gateway.spec import LOCAL_SOURCE, ToolHints
from deepr_mcp.tools import all_tools

HINTS = ("read_only", "destructive", "idempotent", "open_world")


def spec(name: str, description: str, **fields: object) -> ToolSpec:
    return ToolSpec(name, description, {"type": "object", "properties": {}}, **fields)  # type: ignore[arg-type]


def test_every_catalogue_tool_declares_all_four_hints() -> None:
    for tool in all_tools():
        hints = tool.annotations
        assert hints is not None, tool.name
        assert all(isinstance(getattr(hints, h), bool) for h in HINTS), (tool.name, hints)
        assert not (hints.read_only and hints.destructive), tool.name
        assert tool.source == LOCAL_SOURCE
        if tool.name.endswith(("_delete", "_remove", "_cancel")):
            assert hints.destructive, f"{tool.name} ends something: destructiveHint"
        if tool.scope == "read":
            assert hints.read_only, f"{tool.name} needs only the read scope: readOnlyHint"


def test_read_request_ranks_search_before_removal() -> None:
    registry = ToolRegistry(all_tools())
    names = [h.name for h in registry.search("find documents about asyncio", 5)]
    assert names[0] == "corpus_search"
    read_only = [n for n in names if registry.get(n).annotations.read_only]
    if "corpus_remove" in names:
        assert names.index("corpus_remove") > names.index(read_only[-1])


def test_destructive_verb_brings_the_destructive_tool_back() -> None:
    registry = ToolRegistry(all_tools())
    assert registry.search("delete the document about asyncio", 1)[0].name == "corpus_remove"
    assert registry.search("remove a document from the corpus", 1)[0].name == "corpus_remove"


def test_similar_scores_read_only_wins_unless_asked_to_destroy() -> None:
    registry = ToolRegistry(
        [
            spec("notes_a", "notes for the project", annotations={"destructiveHint": True, "readOnlyHint": False}),
            spec("notes_b", "notes for the project", annotations={"readOnlyHint": True}),
            spec("notes_c", "notes for the project"),  # no annotations: neither pushed back nor forward
        ]
    )
    assert [h.name for h in registry.search("project notes", 3)] == ["notes_b", "notes_c", "notes_a"]
    assert [h.name for h in registry.search("delete project notes", 3)] == ["notes_a", "notes_b", "notes_c"]


def test_annotations_accept_mcp_wire_form_and_round_trip() -> None:
    wire = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True, "title": "T", "junk": 1}
    tool = spec("x_tool", "x", annotations=wire)
    assert tool.annotations == ToolHints(read_only=False, destructive=False, idempotent=True, title="T")
    assert tool.annotations.to_mcp() == {k: v for k, v in wire.items() if k != "junk"}
    assert not tool.annotations.may_destroy
    assert ToolHints(read_only=False).may_destroy  # the spec's default for an unsaid destructiveHint
    assert spec("y_tool", "y").annotations is None and spec("y_tool", "y").source == "deepr"
    legacy = ToolSpec("z_tool", "z", {"type": "object"}, "cat")  # positional fields keep working
    assert legacy.category == "cat" and legacy.annotations is None


def test_filters_by_category_and_source() -> None:
    registry = ToolRegistry(
        [
            spec("docs_search", "search documents", category="corpus"),
            spec("wiki_search", "search documents", category="corpus", source="wiki"),
            spec("mail_search", "search documents", category="mail", source="wiki"),
        ]
    )
    assert {h.name for h in registry.search("search documents", 5, category="corpus")} == {"docs_search", "wiki_search"}
    assert {h.name for h in registry.search("search documents", 5, source="wiki")} == {"mail_search", "wiki_search"}
    assert [h.name for h in registry.search("search", 5, category="corpus", source="wiki")] == ["wiki_search"]
    assert registry.search("search", 5, category="nope") == []
    assert registry.categories() == ["corpus", "mail"] and registry.sources() == ["deepr", "wiki"]


class LuceneOkapi(BM25Okapi):
    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))


WORDS = st.sampled_from("alpha beta gamma delta epsilon zeta eta theta".split())


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(WORDS, min_size=1, max_size=12), min_size=1, max_size=30),
    st.lists(WORDS, max_size=6),
    st.sampled_from([0.0, 0.3, 0.75, 1.0]),
)
def test_index_scores_equal_rank_bm25_with_lucene_idf(docs: list[list[str]], query: list[str], b: float) -> None:
    """The precomputed index is a speed-up, not a different ranking, at any length normalisation."""
    assert np.allclose(BM25Index(docs, b=b).scores(query), LuceneOkapi(docs, b=b).get_scores(query))


def test_a_tool_that_documents_its_parameters_is_not_pushed_below_a_terse_one() -> None:
    """Parameter docs make a tool's text long without making it less about its name: the tool named
    for the query's word comes before a one-line tool that only mentions it."""
    documented = ToolSpec(
        "parcel_track",
        "Follow a shipment on its way.",
        {
            "type": "object",
            "properties": {
                name: {"type": "string", "description": text}
                for name, text in {
                    "number": "the tracking number printed on the label",
                    "carrier": "which delivery company carries it, such as a postal service or courier",
                    "language": "language of the status messages returned to the caller",
                    "history": "whether to list every scan event since it was handed over",
                    "since": "only events after this date and time",
                    "notify": "email address to tell when the status changes",
                }.items()
            },
        },
    )
    others = [spec("label_print", "Print a label for a parcel."), spec("invoice_send", "Send an invoice by email.")]
    registry = ToolRegistry([documented, *others])
    assert [h.name for h in registry.search("where is my parcel", 3, mode="lexical")] == ["parcel_track", "label_print"]


def test_many_ties_at_the_limit_still_go_by_name() -> None:
    registry = ToolRegistry([spec(f"tool_{i:03d}", "same words") for i in range(200)])
    assert [h.name for h in registry.search("same words", 5)] == [f"tool_{i:03d}" for i in range(5)]


def test_pinned_setting_refuses_what_is_not_a_tool_name() -> None:
    from deepr_mcp.config import load_settings
    from deepr_mcp.errors import InvalidInput

    assert load_settings(gateway={"pinned": ["corpus_search"]}).gateway.pinned == ["corpus_search"]
    with pytest.raises(InvalidInput, match="not tool names"):
        load_settings(gateway={"pinned": ["has space"]})
