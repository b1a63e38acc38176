"""Operators written as symbols or keywords are searched by the names documentation gives them."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.retrieval.lexical import Retriever
from deepr_mcp.research.retrieval.operators import named_keywords, named_operators, operator_words, writes_keyword


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
    from deepr_mcp.research.retrieval import lexical as retrieval

    monkeypatch.setattr(retrieval, "operator_words", lambda text: [])
    assert not _top_location(tmp_path).endswith("Identity comparisons")


@pytest.mark.parametrize(
    ("text", "keywords"),
    [
        ("What happens when a with block is entered and exited?", ["with"]),
        ("How do iterators work in a for loop?", ["for"]),
        ("What is the difference between the is operator and == ?", ["is"]),
        ("Why use `with` here?", ["with"]),
        ("What do the if statement and the in keyword do?", ["if", "in"]),
        ("How do I loop over a dict?", []),  # "loop" as a verb
        ("Is there a way to do it with a loop?", []),  # "with" as a preposition
        ("I read it for a while", []),
    ],
)
def test_keywords_named_as_constructs(text: str, keywords: list[str]) -> None:
    assert named_keywords(text) == keywords


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("The `with` statement is used to wrap a block", True),
        ("8.5. The with statement", True),
        ("With Statement Context Managers", True),
        ("`with open(path) as f:`", True),
        ("Do it with care and with patience.", False),
        ("`without` is no keyword", False),
    ],
)
def test_a_passage_writes_a_keyword_as_code_or_a_construct(text: str, written: bool) -> None:
    assert writes_keyword(text, "with") is written


KEYWORD_DOCS = """# Compound statements

## The with statement

The `with` statement wraps a block in a context manager: its enter method runs first and its exit method runs last.

# Threading

## Lock objects

A lock is entered when a thread acquires it and exited when the thread releases it; the block of code
between acquire and release is entered by one thread at a time.
"""


def test_a_keyword_named_as_a_construct_prefers_passages_that_write_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "docs.md").write_text(KEYWORD_DOCS)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path)
    analysis = analyse("What happens when a with block is entered and exited?")

    def first() -> str:
        return Retriever(corpus).retrieve(analysis.question, analysis, 1).passages[0].location

    assert first().endswith("The with statement")
    from deepr_mcp.research.retrieval import lexical as retrieval

    monkeypatch.setattr(retrieval, "KEYWORD_BOOST", 1.0)  # "with" itself is a stop word: no term finds it
    assert first().endswith("Lock objects")
