"""Feedback by meaning: the question's vector moves toward the passages retrieval ranks first, and what lies near
the moved question joins the candidates, though it shares no word with the question and is not near it alone."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from deepr_mcp.research.corpus.backfill import embed_pending
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.retrieval import lexical
from deepr_mcp.research.retrieval.feedback import shifted_query
from deepr_mcp.research.retrieval.hybrid import HybridSearch
from deepr_mcp.research.retrieval.lexical import Retriever
from tests.research.test_retrieval import indexed

PLACES = {
    "foot": (0.75, 0.66, 0.0),  # on the topic, in the question's words
    "chisel": (0.75, 0.66, 0.0),
    "heavy": (0.32, 0.0, 0.947),  # a little nearer the question alone, off the topic
    "diary": (0.31, 0.0, 0.95),
    "elements": (0.31, 0.0, 0.95),
    "wash": (0.30, 0.954, 0.0),  # the answer: the topic in the documents' own words
}
"""Where a passage lies, by a word it holds: axis 0 is the question's own wording, axis 1 the topic as the
documents put it, axis 2 anything else."""


class Places:
    """An embedder whose vectors are set by hand (``PLACES``); every question lies on axis 0."""

    name = "places@1"
    dimensions = 3

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        rows = []
        for text in texts:
            place = next((v for w, v in PLACES.items() if w in text.lower()), (0.0, 0.0, 1.0))
            rows.append((1.0, 0.0, 0.0) if query else place)
        vectors = np.array(rows, dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


STUDIO = """# Studio

## Runs

Pots stick to the shelf when glaze runs down over the foot.

## Freeing

A pot stuck fast to its shelf comes free with a chisel and a light tap.

## Loading

Heavy pieces go low in the stack and light ones high.

## Diary

Keep a diary of every cone reached, with the date and the hours taken.

## Elements

Elements age with every hot cycle and climb more slowly as they do.

## Batts

Paint a coat of wash on every batt before its first firing, so drips lift off cleanly.
"""
QUESTION = "How do I stop my pots sticking to the shelf?"


def test_the_question_moves_toward_the_best_passages_and_needs_two_of_them() -> None:
    question = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    topic = np.array([0.6, 0.8, 0.0], dtype=np.float32)
    moved = shifted_query(question, [topic, topic])
    assert moved is not None
    assert np.isclose(np.linalg.norm(moved), 1.0)
    assert float(moved @ topic) > float(question @ topic)  # nearer the passages found
    assert float(moved @ question) > 0.8  # still the question
    assert shifted_query(question, [topic]) is None  # one passage is no consensus
    assert shifted_query(question, []) is None


def test_the_answer_in_the_documents_words_joins_by_the_moved_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Paint wash on the batts shares no word with the question and lies farther from it than the diary or the
    loading plan; it lies near the passages that do answer in the question's words, so the question moved toward
    them finds it. Without the move it is never a candidate."""
    corpus = indexed(tmp_path, {"studio.md": STUDIO})
    embedder = Places()
    embed_pending(corpus, embedder)
    monkeypatch.setattr(lexical, "SEMANTIC_PER_QUERY", 3)  # the three nearest join, as 30 do among thousands
    asked = analyse(QUESTION)

    def found() -> list[str]:
        retriever = Retriever(corpus, HybridSearch(corpus, embedder), "hybrid")
        return [p.location for p in retriever.retrieve(QUESTION, asked, 4).passages]

    with_feedback = found()
    assert "Studio > Batts" in with_feedback
    assert {"Studio > Runs", "Studio > Freeing"} <= set(with_feedback)
    assert "Studio > Diary" not in with_feedback
    monkeypatch.setattr(lexical, "shifted_query", lambda query, best: None)
    assert "Studio > Batts" not in found()
