"""A Gaps line says "the documents say nothing about X" only of what no passage of the documents writes.

The part's gap is decided from the passages retrieved for it; the words those passages miss are what the line
would name. But a word the corpus writes elsewhere ("lid", "cooling shelves") is not something the documents are
silent on, and saying so would be false: the part stays a gap, for the reason its passages give. Small made-up
kiln documents.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.embedding import shared_embedder
from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.synthesis.meaning import heavy_words
from deepr_mcp.research.synthesis.unmentioned import unwritten
from tests.research.documents import corpus_of
from tests.research.test_unmentioned_names import MANUAL


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return corpus_of(tmp_path, "kiln.md", MANUAL)


def test_a_phrase_with_a_word_no_passage_writes_is_kept_and_one_written_elsewhere_is_not(corpus: Corpus) -> None:
    asked = ["noise level", "lid", "cooling shelves", "glaze recipes", "noise of the lid"]
    # "noise", "level" and "recipes" are written nowhere; "lid", "cooling", "shelves" and "glaze" are; a phrase is
    # trimmed to its unwritten words and what stands between them
    assert unwritten(corpus, asked) == ["noise level", "recipes", "noise"]


def test_a_word_a_gathered_source_writes_is_not_unwritten(corpus: Corpus) -> None:
    assert unwritten(corpus, ["noise level"], gathered=["The kiln's noise level is a low hum."]) == []


def test_stop_words_alone_say_nothing_either_way(corpus: Corpus) -> None:
    assert unwritten(corpus, ["of the"]) == []


def test_a_corpus_that_holds_nothing_or_cannot_count_words_keeps_every_phrase(tmp_path: Path) -> None:
    assert unwritten(Corpus(tmp_path / "empty.db"), ["noise level"]) == ["noise level"]
    assert unwritten(object(), ["lid"]) == ["lid"]


def test_only_words_that_carry_the_part_are_named(corpus: Corpus) -> None:
    # "big" and "argues" are written nowhere, but they are asides: naming them says nothing of what was asked
    part = "How loud is the kiln while my big family argues next door?"
    heavy = heavy_words(shared_embedder("minilm"), part)
    assert heavy is not None and {"loud", "family"} <= heavy and not {"big", "argues"} & heavy
    assert unwritten(corpus, ["loud", "big family argues"]) == ["loud", "big family argues"]
    assert unwritten(corpus, ["loud", "big family argues", "big"], heavy=heavy) == ["loud", "family"]


def test_a_word_that_ends_its_sentence_is_weighed_without_the_stop() -> None:
    heavy = heavy_words(shared_embedder("minilm"), "My kiln fires glazes. It uses a Brandwerk controller.")
    assert heavy is not None and not any(w.endswith(".") for w in heavy)
    assert "brandwerk" in heavy or "controller" in heavy
