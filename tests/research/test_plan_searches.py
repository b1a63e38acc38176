"""A model's plan may add searches in the documentation's words ("SEARCH: ..."): they are searched
beside the question, shown in plan.md, and find what the user's own words miss.

The documents are a made-up pottery manual, never a bench's text.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.models import SubQuestion
from deepr_mcp.research.providers.base import Completion, FindingsRequest, PlanRequest, Request
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.research.providers.prompts import messages_for, parse_plan, plan_messages
from tests.fake_llm import reading_model

QUESTION = "How do I stop my pots getting glued to the bottom of the oven when they drip?"
ANSWER = "Paint every shelf with kiln wash, a mix of alumina and kaolin, so that runs release instead of fusing."
CHAPTERS = [
    ("Loading the oven", "Place pots on the bottom of the oven a finger's width apart so heat reaches each pot."),
    ("Drip trays", "Pots that drip water after throwing should dry on a drip tray before they go in the oven."),
    ("Oven bottom", "The bottom of the oven is the hottest place; stop pots there only for a hotter firing."),
    ("Getting started", "Your pots and the oven: how to stop a firing early and how long pots take to cool."),
]


def manual(tmp_path: Path) -> Corpus:
    text = "\n\n".join(f"## {title}\n\n{body}" for title, body in CHAPTERS)
    (tmp_path / "pottery.md").write_text(f"# Pottery manual\n\n{text}\n\n## Kiln furniture\n\n{ANSWER}\n")
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "pottery.md")
    return corpus


class ChatModel:
    """A chat model's stand-in (``tests.fake_llm.reading_model``) whose plan may add searches; it
    remembers every passage it was shown."""

    name, model = "scripted", "reader"

    def __init__(self, searches: str = "") -> None:
        self.searches = searches
        self.shown: list[str] = []

    async def research(self, request: Request, *, max_tokens: int = 1024) -> Completion:
        if isinstance(request, PlanRequest):
            return Completion(f"{request.question}\n{self.searches}")
        if isinstance(request, FindingsRequest):
            self.shown += [p.text for p in request.passages]
        return Completion(reading_model(messages_for(request)))


def test_search_lines_are_searches_not_parts() -> None:
    parts, searches = parse_plan(
        "How do I stop pots sticking?\n- SEARCH: kiln wash shelf\nsearch: kiln wash shelf\nSEARCH:\n"
        + "".join(f"SEARCH: term {n}\n" for n in range(9))
    )
    assert parts == ["How do I stop pots sticking?"]
    assert searches == ["kiln wash shelf", "term 0", "term 1", "term 2"]  # deduplicated, at most four
    system = plan_messages(QUESTION, 3)[0].content
    assert "SEARCH: " in system and "documentation" in system


async def test_a_plans_searches_find_the_passage_in_the_documents_words(tmp_path: Path) -> None:
    corpus = manual(tmp_path)
    plain = ChatModel()
    await Engine(corpus, plain).run(new_state(QUESTION, max_sub_questions=1))
    assert not any("kiln wash" in text for text in plain.shown)  # the user's words lead elsewhere

    model = ChatModel("SEARCH: kiln wash shelf furniture")
    state = new_state(QUESTION, max_sub_questions=1)
    state.queries = ["kiln shelves"]  # the calling agent's own, kept first
    state = await Engine(corpus, model).run(state)
    assert [sq.text for sq in state.sub_questions] == [QUESTION]
    assert state.queries == ["kiln shelves", "kiln wash shelf furniture"]
    assert any("kiln wash" in text for text in model.shown)
    assert "kiln wash" in (state.report or "")


async def test_the_agents_queries_reach_the_local_providers_report(tmp_path: Path) -> None:
    """The calling agent's phrasings (``queries``) work the same way with no model at all."""
    corpus = manual(tmp_path)
    plain = await Engine(corpus, LocalProvider()).run(new_state(QUESTION, max_sub_questions=1))
    assert "kiln wash" not in (plain.report or "")
    state = new_state(QUESTION, max_sub_questions=1)
    state.queries = ["kiln wash shelf"]
    state = await Engine(corpus, LocalProvider()).run(state)
    assert "kiln wash" in (state.report or "")


class StandsOut:
    """A corpus and embedder where one passage stands far out for any text naming "kiln wash" and not at
    all for the user's words: what an agent's phrasing in the documents' words does on a large corpus."""

    name, dimensions = "fake", 2

    def embed(self, texts: list[str], *, query: bool = False) -> Any:
        return np.array([[1.0, 0.0] if "kiln wash" in t else [0.0, 1.0] for t in texts], dtype=np.float32)

    def embedding_status(self, model: str) -> dict[str, int]:
        return {"embedded": 10_000, "pending": 0}

    def cosine_spread(self, model: str, vector: Any) -> tuple[float, float]:
        return 0.0, 0.1

    def vectors_of(self, model: str, passage_ids: list[str]) -> dict[str, Any]:
        return {pid: np.array([1.0, 0.0], dtype=np.float32) for pid in passage_ids}


def test_a_passage_that_stands_out_for_the_agents_phrasing_answers_by_meaning(tmp_path: Path) -> None:
    fake = StandsOut()
    search = SimpleNamespace(corpus=fake, embedder=fake, semantic_enabled=True)
    engine = Engine(manual(tmp_path), LocalProvider(), search=search)  # type: ignore[arg-type]
    state = new_state(QUESTION, max_sub_questions=1)
    part = SubQuestion(id="sq1", text=QUESTION)
    assert engine.standing.meaning(state, part, ["p-kiln-wash"]) is False  # the user's words: it stands nowhere
    state.queries = ["kiln wash shelf"]
    assert engine.standing.meaning(state, part, ["p-kiln-wash"]) is True
