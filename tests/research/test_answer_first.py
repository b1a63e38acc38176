"""The answer opens with the line that answers the question asked, chosen by meaning: the cause for a
"why", not the definition of the thing the question names (which holds as many of its words).

The documents are the synthetic heat-pump manual (tests/heat_pumps.py); the engine runs with the
packaged embedder, as the server does.
"""

from __future__ import annotations

from pathlib import Path

from deepr_mcp.embedding import shared_embedder
from deepr_mcp.research.corpus.backfill import embed_pending
from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.providers.base import AnswerRequest, StatedFinding
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.research.providers.local_answer import answer_text
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.retrieval.hybrid import HybridSearch
from tests.heat_pumps import HEAT_PUMPS

WHY = "Why does the efficiency of a heat pump fall in cold weather?"
DEFINITION = "A heat pump moves heat from outdoor air into a building instead of burning fuel."
CAUSE = "Below freezing, frost builds up on the heat pump's outdoor coil, and melting it lowers its efficiency."


def section(report: str, name: str) -> str:
    return report.split(f"## {name}", 1)[1].split("\n## ", 1)[0]


async def test_a_why_report_opens_with_the_cause_not_the_definition(tmp_path: Path) -> None:
    (tmp_path / "heat-pumps.md").write_text(HEAT_PUMPS)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "heat-pumps.md")
    embedder = shared_embedder("minilm")
    embed_pending(corpus, embedder)
    engine = Engine(corpus, LocalProvider(), search=HybridSearch(corpus, embedder), retrieval="hybrid")
    state = await engine.run(new_state(WHY))
    answer = section(state.report or "", "Answer").strip()
    assert answer.startswith("Below freezing, frost builds up on the outdoor coil"), answer
    assert "[" in answer.split(".", 1)[1]  # cited


def request(closeness: tuple[float | None, float | None]) -> AnswerRequest:
    found = (StatedFinding(DEFINITION, (1,), None, closeness[0]), StatedFinding(CAUSE, (2,), None, closeness[1]))
    return AnswerRequest(WHY, analyse(WHY), ((WHY, found),), ())


def test_the_line_closest_in_meaning_opens_a_why_answer() -> None:
    assert answer_text(request((0.61, 0.66))).startswith(CAUSE)
    assert answer_text(request((0.70, 0.52))).startswith(DEFINITION)  # the signal decides, not the words


def test_without_an_embedder_the_findings_order_stands() -> None:
    assert answer_text(request((None, None))).startswith(DEFINITION)


def test_a_chat_model_reads_each_parts_closest_finding_first() -> None:
    from deepr_mcp.research.providers.prompts import messages_for

    user = messages_for(request((0.61, 0.66)))[-1].content
    assert user.index(CAUSE) < user.index(DEFINITION)
    user = messages_for(request((None, None)))[-1].content  # unmeasured: the findings step's order
    assert user.index(DEFINITION) < user.index(CAUSE)
