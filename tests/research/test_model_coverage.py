"""Who says a part is answered: with a chat model, the model's reading of the passages (each claim
checked against them), not the small embedder's standing; with the extractive provider, the judges.

The documents are the made-up heat-pump manual of the honesty tests. A fake embedder makes nothing stand
out by meaning, as on a corpus whose wording is far from the user's.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.providers.base import Completion, FindingsRequest, PlanRequest, Request
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.research.synthesis.coverage import Verdict, settle
from tests.heat_pumps import HEAT_PUMPS

QUESTION = "How well do heat pumps work when it is freezing outside, and how loud are they?"


class NothingStandsOut:
    name, dimensions = "flat", 2

    def embed(self, texts: list[str], *, query: bool = False) -> Any:
        return np.array([[0.0, 1.0]] * len(texts), dtype=np.float32)

    def embedding_status(self, model: str) -> dict[str, int]:
        return {"embedded": 10_000, "pending": 0}

    def cosine_spread(self, model: str, vector: Any) -> tuple[float, float]:
        return 0.5, 0.2

    def vectors_of(self, model: str, passage_ids: list[str]) -> dict[str, Any]:
        return {pid: np.array([0.6, 0.8], dtype=np.float32) for pid in passage_ids}  # cosine 0.8: 1.5 deviations


def flat_search() -> Any:
    flat = NothingStandsOut()
    return SimpleNamespace(
        corpus=flat,
        embedder=flat,
        semantic_enabled=True,
        nearest=lambda vectors, k: [[] for _ in vectors],
    )


class CarefulModel:
    """A chat model's stand-in that quotes the passage on cold-weather efficiency and says NO EVIDENCE
    where the passages do not answer (noise)."""

    name, model = "scripted", "careful"

    async def research(self, request: Request, *, max_tokens: int = 1024) -> Completion:
        if isinstance(request, PlanRequest):
            return Completion("How well do heat pumps work when it is freezing outside?\nHow loud are heat pumps?")
        if isinstance(request, FindingsRequest):
            if "loud" in request.sub_question:
                return Completion("NO EVIDENCE", provider="scripted")
            for passage in request.passages:
                if "-15" in passage.text:
                    claim = "at -15 °C modern cold-climate models still reach a COP of about 2"
                    return Completion(f"- {claim} [{passage.number}]", provider="scripted")
            return Completion("NO EVIDENCE", provider="scripted")
        return Completion("At -15 °C modern cold-climate heat pumps still reach a COP of about 2. [1]")


def corpus_of(tmp_path: Path) -> Corpus:
    (tmp_path / "heat-pumps.md").write_text(HEAT_PUMPS)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "heat-pumps.md")
    return corpus


async def test_a_chat_models_reading_answers_the_part_it_found_and_leaves_the_rest_a_gap(tmp_path: Path) -> None:
    state = await Engine(corpus_of(tmp_path), CarefulModel(), search=flat_search()).run(new_state(QUESTION))
    cold, loud = state.sub_questions
    assert cold.status == "answered" and cold.findings and "COP of about 2" in (state.report or "")
    assert loud.status == "unanswered" and not loud.findings
    gaps = (state.report or "").split("## Gaps", 1)[1]
    assert "How loud are heat pumps?" in gaps and "freezing" not in gaps


async def test_the_extractive_provider_is_still_judged_by_meaning(tmp_path: Path) -> None:
    state = await Engine(corpus_of(tmp_path), LocalProvider(), search=flat_search()).run(new_state(QUESTION))
    assert all(sq.status != "answered" for sq in state.sub_questions)  # nothing stands out: no part is claimed


def test_settle_trusts_a_model_reading_but_not_for_an_unwritten_name_or_a_comparison() -> None:
    words_only = Verdict(False, 0.2, ["loud"])
    read = {"found_by_meaning": False, "meaning": False, "read_by_model": True}
    assert settle(words_only, sides=False, unmentioned=False, **read).answered
    assert settle(words_only, sides=False, unmentioned=True, **read).off_topic
    assert not settle(words_only, sides=True, unmentioned=False, **read).answered
    unread = {**read, "read_by_model": False}
    assert settle(words_only, sides=False, unmentioned=False, **unread).off_topic
