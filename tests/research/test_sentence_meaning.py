"""The local provider chooses sentences by meaning as well as by words, when it has the corpus's embedder.

A toy embedder stands in for the model here so that what is close is decided by the test: each text
is a unit vector over a few invented concepts, found by the words that stand for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from deepr_mcp.config import Settings
from deepr_mcp.embedding.base import NoEmbedder
from deepr_mcp.research.providers import local
from deepr_mcp.research.providers.factory import make_provider
from deepr_mcp.research.providers.local import LocalProvider, best_units, findings_text, with_meaning
from deepr_mcp.research.synthesis.claims import Unit
from deepr_mcp.research.synthesis.closeness import SentenceCloseness
from tests.research.requests import findings_request

CONCEPTS = {
    "split": ("crack", "cracking", "split", "splits", "whole"),
    "cool": ("cool", "cools", "slowly", "overnight", "shut"),
    "shelf": ("shelf", "shelves", "stacked", "row"),
}


class ConceptEmbedder:
    """Texts to unit vectors over ``CONCEPTS`` (plus a constant axis), counting what it embeds."""

    name = "concepts@1"
    dimensions = len(CONCEPTS) + 1

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        self.embedded += list(texts)
        rows = []
        for text in texts:
            words = set(text.lower().replace(".", " ").replace("?", " ").split())
            row = [float(bool(words & set(ws))) for ws in CONCEPTS.values()] + [0.3]
            rows.append(np.array(row, dtype=np.float32) / np.linalg.norm(row))
        return np.stack(rows)


QUESTION = "How do I stop mugs from cracking?"
ON_THE_SHELF = "Mugs stop on the top shelf in a row, stacked before they go into the kiln."
COOL_SLOWLY = "Let the kiln cool slowly overnight with its door shut so the ware stays whole."
PASSAGES = [(1, "kiln.md, Loading", ON_THE_SHELF), (2, "kiln.md, Unloading", COOL_SLOWLY)]


def request():  # type: ignore[no-untyped-def]
    # passage 2 came from the dense index: it answers in words the question does not use
    return replace(findings_request(QUESTION, PASSAGES), max_findings=1, meant=(2,))


def test_the_sentence_that_means_the_answer_is_chosen_over_one_that_shares_the_words() -> None:
    near = SentenceCloseness(ConceptEmbedder())
    by_words = [n for _, n, _ in best_units(request())]
    by_meaning = [n for _, n, _ in best_units(request(), near)]
    assert by_words[0] == 1  # "mugs" and nothing else of the question: words alone put it first
    assert by_meaning[0] == 2
    assert findings_text(request(), near) == f"- {COOL_SLOWLY} [2]"


def test_without_an_embedder_the_provider_ranks_by_words() -> None:
    assert LocalProvider().near is None
    assert LocalProvider(NoEmbedder()).near is None  # research.embedder = "none"
    assert LocalProvider(ConceptEmbedder()).near is not None
    provider = make_provider(Settings(), None, "local", embedder=ConceptEmbedder())
    assert isinstance(provider, LocalProvider) and provider.near is not None


def test_a_sentence_is_embedded_once_and_only_the_question_each_time() -> None:
    embedder = ConceptEmbedder()
    near = SentenceCloseness(embedder)
    first = near(QUESTION, [ON_THE_SHELF, COOL_SLOWLY])
    assert embedder.embedded == [ON_THE_SHELF, COOL_SLOWLY, QUESTION]
    again = near(QUESTION, [COOL_SLOWLY, ON_THE_SHELF])
    assert embedder.embedded[3:] == [QUESTION]
    assert again == first[::-1]
    assert first[1] > first[0]


def test_the_sentence_cache_is_bounded() -> None:
    embedder = ConceptEmbedder()
    near = SentenceCloseness(embedder, cached=2)
    near(QUESTION, ["one shelf.", "two shelves.", "a row."])
    near(QUESTION, ["one shelf."])  # the oldest was let go: embedded again
    assert embedder.embedded.count("one shelf.") == 2
    assert len(near._vectors) == 2


def test_code_spans_are_left_out_of_what_is_compared() -> None:
    embedder = ConceptEmbedder()
    SentenceCloseness(embedder)(QUESTION, ["Call `crack()` to read the shelf."])
    assert "crack" not in embedder.embedded[0] and embedder.embedded[0].endswith("to read the shelf.")


def test_only_the_best_by_words_are_measured_and_the_rest_take_the_lowest_measured() -> None:
    scored = [(1.0 - i / 100, 0, -i, Unit(f"sentence {i} about a shelf.", None, i), 1) for i in range(50)]
    asked: list[str] = []

    def near(question: str, sentences: Sequence[str]) -> list[float]:
        asked.extend(sentences)
        return [0.5 + 0.01 * i for i in range(len(sentences))]

    out = with_meaning(scored, QUESTION, near)
    assert len(asked) == local.MEANING_CANDIDATES
    lowest = local.MEANING_WEIGHT * 0.5
    for i in range(local.MEANING_CANDIDATES, 50):
        assert out[i][0] == scored[i][0] + lowest
    assert out[0][0] == scored[0][0] + lowest
    assert out[1][0] == scored[1][0] + local.MEANING_WEIGHT * 0.51
