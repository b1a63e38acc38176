"""The content terms of research text: the words of question templates are not what a question is about."""

from __future__ import annotations

from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.reading.terms import coverage, doc_words, terms, weigh_doc_words
from deepr_mcp.research.retrieval.lexical import key_terms
from deepr_mcp.research.retrieval.signals import COORD_MIN_WEIGHT


def test_the_preposition_of_a_comparison_template_is_no_content_term() -> None:
    # "between" would match "Convert between binary and ASCII" for any "difference between" question
    assert terms("What is the difference between bytes and bytearray?") == {"byte", "bytearray"}
    assert key_terms(analyse("What is the difference between bytes and bytearray?")) == ["byte", "bytearray"]


def test_coverage_counts_only_content_terms() -> None:
    assert coverage({"byte", "bytearray"}, "Convert between bytes and text") == 0.5
    assert coverage(set(), "anything") == 0.0


def test_everyday_words_map_to_the_documentation_words_by_stem() -> None:
    assert doc_words("visit every file in a folder and its subfolders") == {
        "folder": "directory",
        "subfold": "subdirectory",
    }
    assert doc_words("How do I keep the env settings?") == {"keep": "preserve", "env": "environment"}
    assert doc_words("How do I sort a list by a key?") == {}


def test_the_documentation_word_takes_the_weight_and_the_everyday_word_becomes_optional() -> None:
    weights = {"copi": 1.0, "file": 1.0, "keep": 1.0, "timestamp": 1.0}
    words = weigh_doc_words("How do I copy a file and keep its timestamps?", weights, 0.8)
    assert words == ["preserve"]
    assert weights["preserv"] == 1.0
    assert weights["keep"] < COORD_MIN_WEIGHT  # a passage saying "preserve" lacks nothing for not saying "keep"
    assert weights["copi"] == weights["timestamp"] == 1.0
    unweighted: dict[str, float] = {}
    assert weigh_doc_words("files in a folder", unweighted, 0.8) == ["directory"]
    assert unweighted == {"directori": 0.8}


def test_everyday_words_are_read_as_the_documentation_writes_them_but_code_abbreviations_are_not() -> None:
    folders, directories = "a file in a folder and its subfolders", "a file in a directory and its subdirectories"
    assert terms(folders) == terms(directories)
    assert coverage(terms("How do I keep the timestamps?"), "copy2() preserves the timestamps") == 1.0
    assert "arg" in terms("parse_args(args)") and "argument" not in terms("parse_args(args)")
