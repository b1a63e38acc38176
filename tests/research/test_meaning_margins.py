"""The meaning judge's arithmetic: a passage answers a part when its margin is not negative.

Alone, a part (or a question of one part) is judged by how far its best passage stands above the corpus's
mean cosine, in the corpus's own deviations. A part of a question of several parts is judged, with an embedder
that declares the cosine at which it puts an answer, by the midpoint of the two bars: in a dense manual the
answer stands out little but is near, and in a sparse corpus a passage far from the question stands out. The
corpus and embedder here are small stand-ins with chosen cosines and spreads; the real ones are judged in
``test_coverage_meaning.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from deepr_mcp.embedding import shared_embedder
from deepr_mcp.research.synthesis.meaning import COVER_SPREAD, MeaningJudge, answer_cosine


class Pointing:
    """Every text embeds to the same unit vector, so a passage's cosine to it is its first coordinate."""

    name, dimensions = "pointing", 2

    def __init__(self, bar: float | None) -> None:
        if bar is not None:
            self.answer_cosine = bar

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        return np.array([[1.0, 0.0]] * len(texts), dtype=np.float32)


class Spread:
    """One passage at a chosen cosine, in a corpus of a thousand whose cosines have a chosen mean and deviation."""

    def __init__(self, cosine: float, mean: float, deviation: float) -> None:
        self.vector = np.array([cosine, math.sqrt(1 - cosine**2)], dtype=np.float32)
        self.spread = (mean, deviation)

    def embedding_status(self, model: str) -> dict[str, int]:
        return {"embedded": 1000}

    def cosine_spread(self, model: str, vector: Any) -> tuple[float, float]:
        return self.spread

    def vectors_of(self, model: str, passage_ids: Sequence[str]) -> dict[str, Any]:
        return {pid: self.vector for pid in passage_ids}


def judged(cosine: float, mean: float, deviation: float, *, bar: float | None, several: bool) -> bool | None:
    judge = MeaningJudge(Spread(cosine, mean, deviation), Pointing(bar))
    return judge.answers("a part", "the whole question", ["p1"], several=several)


DENSE = (0.55, 0.30, 0.10)
"""A dense manual: the answer is near (0.55) but stands only 2.5 deviations out."""
SPARSE = (0.32, 0.00, 0.10)
"""A sparse corpus: a passage stands 3.2 deviations out while far from the question (0.32)."""


@pytest.mark.parametrize("several", [False, True])
def test_without_a_model_bar_a_part_is_judged_by_its_standing_alone(several: bool) -> None:
    assert judged(*DENSE, bar=None, several=several) is False
    assert judged(*SPARSE, bar=None, several=several) is True


def test_a_question_of_one_part_is_judged_by_standing_even_with_a_model_bar() -> None:
    assert judged(*DENSE, bar=0.40, several=False) is False
    assert judged(*SPARSE, bar=0.40, several=False) is True


def test_a_part_of_several_is_judged_at_the_midpoint_of_the_model_bar_and_the_corpus_bar() -> None:
    assert judged(*DENSE, bar=0.40, several=True) is True  # need (0.60 + 0.40) / 2 = 0.50
    assert judged(*SPARSE, bar=0.40, several=True) is False  # need (0.30 + 0.40) / 2 = 0.35


def test_the_margin_is_in_the_corpus_deviations_and_zero_at_the_bar() -> None:
    judge = MeaningJudge(Spread(0.50, 0.20, 0.10), Pointing(0.40))
    alone = judge.margins(["part"], ["p1"])
    both = judge.margins(["part"], ["p1"], several=True)
    assert alone["p1"] == pytest.approx(3.0 - COVER_SPREAD, abs=1e-5)
    assert both["p1"] == pytest.approx((0.50 - (0.20 + COVER_SPREAD * 0.10 + 0.40) / 2) / 0.10, abs=1e-5)


def test_the_shipped_embedder_declares_its_bar_and_a_bad_declaration_is_ignored() -> None:
    assert answer_cosine(shared_embedder("minilm")) == 0.40
    assert answer_cosine(Pointing(None)) is None
    assert answer_cosine(Pointing(True)) is None  # type: ignore[arg-type]
