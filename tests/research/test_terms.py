"""The content terms of research text: the words of question templates are not what a question is about."""

from __future__ import annotations

from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.reading.terms import coverage, terms
from deepr_mcp.research.retrieval.lexical import key_terms


def test_the_preposition_of_a_comparison_template_is_no_content_term() -> None:
    # "between" would match "Mix between glazes and water" for any "differences between" question
    assert terms("What are the differences between glazes and slips?") == {"glaze", "slip"}
    assert key_terms(analyse("What are the differences between glazes and slips?")) == ["glaze", "slip"]


def test_coverage_counts_only_content_terms() -> None:
    assert coverage({"glaze", "slip"}, "Mix between glazes and water") == 0.5
    assert coverage(set(), "anything") == 0.0


def test_words_are_compared_as_written_with_no_hand_made_synonyms() -> None:
    # the embedder bridges "shelf" and "ledge"; a word list no longer pretends to
    assert terms("a pot on a shelf") != terms("a pot on a ledge")
    assert coverage(terms("How do I keep the sheen?"), "a clear coat preserves the sheen") == 0.5
