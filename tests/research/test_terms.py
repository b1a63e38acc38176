"""The content terms of research text: the words of question templates are not what a question is about."""

from __future__ import annotations

from deepr_mcp.research.analysis import analyse
from deepr_mcp.research.retrieval import key_terms
from deepr_mcp.research.terms import coverage, terms


def test_the_preposition_of_a_comparison_template_is_no_content_term() -> None:
    # "between" would match "Convert between binary and ASCII" for any "difference between" question
    assert terms("What is the difference between bytes and bytearray?") == {"byte", "bytearray"}
    assert key_terms(analyse("What is the difference between bytes and bytearray?")) == ["byte", "bytearray"]


def test_coverage_counts_only_content_terms() -> None:
    assert coverage({"byte", "bytearray"}, "Convert between bytes and text") == 0.5
    assert coverage(set(), "anything") == 0.0
