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
        _ranked("Never unpack a Cratebox crate from unknown senders: parts land outside.", 1.0),
        _ranked("The Cratebox unpack strap refuses parts that land outside the pallet.", 0.9),
        _ranked("Barrel crates are read with barrelkit.", 0.2),
        _ranked("Crates of mail live in sorting rooms.", 0.1),
    ]
    words = feedback_terms(pool, {t: 1.0 for t in tokenize("unpack crate")})
    assert "cratebox" in words and "outside" in words
    assert "unpack" not in words  # already asked for
    assert "barrelkit" not in words  # only in the rest of the pool


def test_feedback_needs_two_good_passages() -> None:
    assert feedback_terms([_ranked("one passage alone", 1.0)], {}) == []
    assert feedback_terms([], {}) == []


def test_the_made_up_data_of_code_examples_is_no_feedback_word() -> None:
    example = "```pycon\n>>> shelved(pots, key=lambda p: p.cone)\n[('amber', 'B', 10), ('umber', 'B', 12)]\n```"
    pool = [
        _ranked(f"Shelving glazed pots by cone uses a key function.\n\n{example}", 1.0),
        _ranked(f"A key function reads the cone of each glazed pot.\n\n{example}", 0.9),
        _ranked("Kilns have a shelve method.", 0.2),
        _ranked("Racks map slots to shelves.", 0.1),
    ]
    words = feedback_terms(pool, {t: 1.0 for t in tokenize("shelve kiln")})
    assert "glazed" in words and "cone" in words  # the prose's own words for the topic
    assert not {"amber", "umber"} & set(words)  # the example's data
