"""Pseudo-relevance feedback: words the best passages share and the rest of the pool rarely has."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from deepr_mcp.research.retrieval.feedback import feedback_terms
from deepr_mcp.text.tokenizer import tokenize


@dataclass
class _Passage:
    text: str


@dataclass
class _Ranked:
    passage: _Passage
    terms: Counter[str]
    score: float


def _ranked(text: str, score: float) -> _Ranked:
    return _Ranked(_Passage(text), Counter(tokenize(text)), score)


def test_feedback_takes_the_top_passages_own_words_as_written() -> None:
    pool = [
        _ranked("Never extract a Tarfile archive from untrusted sources: members land outside.", 1.0),
        _ranked("The Tarfile extraction filter refuses members that land outside the destination.", 0.9),
        _ranked("Zip archives are read with zipfile.", 0.2),
        _ranked("Archives of mail live in mailbox folders.", 0.1),
    ]
    words = feedback_terms(pool, {t: 1.0 for t in tokenize("extract archive")})
    assert "tarfile" in words and "outside" in words
    assert "extract" not in words  # already asked for
    assert "zipfile" not in words  # only in the rest of the pool


def test_feedback_needs_two_good_passages() -> None:
    assert feedback_terms([_ranked("one passage alone", 1.0)], {}) == []
    assert feedback_terms([], {}) == []


def test_the_made_up_data_of_code_examples_is_no_feedback_word() -> None:
    example = "```pycon\n>>> sorted(students, key=lambda s: s.grade)\n[('dave', 'B', 10), ('jane', 'B', 12)]\n```"
    pool = [
        _ranked(f"Sorting student records by grade uses a key function.\n\n{example}", 1.0),
        _ranked(f"A key function extracts the grade of each student record.\n\n{example}", 0.9),
        _ranked("Lists have a sort method.", 0.2),
        _ranked("Dictionaries map keys to values.", 0.1),
    ]
    words = feedback_terms(pool, {t: 1.0 for t in tokenize("sort list")})
    assert "student" in words and "grade" in words  # the prose's own words for the topic
    assert not {"dave", "jane"} & set(words)  # the example's data
