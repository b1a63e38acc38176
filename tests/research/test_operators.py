"""Operators written as symbols or keywords are searched by the names documentation gives them."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research.analysis import analyse
from deepr_mcp.research.operators import named_operators, operator_words
from deepr_mcp.research.passages import Corpus
from deepr_mcp.research.retrieval import Retriever


@pytest.mark.parametrize(
    ("text", "operators"),
    [
        ("What is the difference between the is operator and == ?", ["==", "is"]),
        ("Why is `is` not the same as `==`?", ["is", "=="]),
        ("What does ** do?", ["**"]),
        ("What is the @ operator?", ["@"]),
        ("What does the in keyword do?", ["in"]),
        ("When is the not in operator used?", ["not in"]),
        ("What does x := 5 mean?", [":="]),
        ("How does += work on lists?", ["+="]),
    ],
)
def test_operators_named_as_symbols_backticks_or_keywords(text: str, operators: list[str]) -> None:
    assert named_operators(text) == operators


@pytest.mark.parametrize(
    "text",
    [
        "Is a list in a tuple?",  # keywords as plain English words
        "How do I read and write files - safely?",  # a dash
        "Wait... what is a generator?",  # an ellipsis
        "Use a dict/list or a set",  # a slash inside words
        "a<b and c>=d",  # symbols glued to words are code, not named operators
        "",
    ],
)
def test_plain_prose_names_no_operator(text: str) -> None:
    assert named_operators(text) == []


def test_operator_words_are_the_glossary_names_in_order() -> None:
    assert operator_words("the is operator and ==") == ["equality", "equal", "identity"]
    assert operator_words("`==` or `!=`") == ["equality", "equal", "inequality"]
    assert operator_words("no operators here") == []


def _top_location(tmp_path: Path) -> str:
    (tmp_path / "expressions.md").write_text(
        "# Expressions\n\n## Identity comparisons\n\nThe operators is and is not test for an object's identity: "
        "x is y is true if and only if x and y are the same object.\n\n"
        "## Membership tests\n\nThe operators in and not in test for membership in a container.\n\n"
        "## Operator precedence\n\nThe following table summarizes the operator precedence in Python, from "
        "highest to lowest precedence; each operator binds tighter than the operator below it.\n\n"
        "## Operator overloading\n\nA class can overload an operator by defining a special method; the "
        "operator then calls that method.\n"
    )
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path)
    analysis = analyse("What does the is operator do?")
    return Retriever(corpus).retrieve(analysis.question, analysis, 1).passages[0].location


def test_a_question_about_an_operator_finds_the_section_that_names_it_in_words(tmp_path: Path) -> None:
    assert _top_location(tmp_path).endswith("Identity comparisons")


def test_without_the_glossary_the_operator_question_misses_that_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deepr_mcp.research import retrieval

    monkeypatch.setattr(retrieval, "operator_words", lambda text: [])
    assert not _top_location(tmp_path).endswith("Identity comparisons")
