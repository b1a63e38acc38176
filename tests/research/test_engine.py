"""The engine over a real corpus built in the test, with the local provider."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state, partial_report
from deepr_mcp.research.models import Phase
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.sandbox import SandboxManager

SAMPLES = Path(__file__).resolve().parents[2] / "deepr_mcp" / "data" / "samples" / "cables"
QUESTION = "Why did the first transatlantic telegraph cable fail, and how are cable faults repaired today?"


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(SAMPLES)
    return corpus


async def test_report_citations_resolve_to_passages_containing_the_claims(corpus: Corpus, tmp_path: Path) -> None:
    sandbox = SandboxManager(tmp_path / "sb").create("c1")
    engine = Engine(corpus, LocalProvider(), sink=sandbox)
    events = []

    async def record(event: object) -> None:
        events.append(event)

    state = await engine.run(new_state(QUESTION), record)
    assert state.phase == Phase.COMPLETE and state.report
    assert [e.progress for e in events] == sorted(e.progress for e in events) and events[-1].progress == 1.0
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", state.report)}
    by_number = {c.number: c for c in state.passages.values()}
    assert numbers and numbers <= set(by_number)
    for sq in state.sub_questions:
        for finding in sq.findings:
            texts = [corpus.passage(pid).text for pid in finding.passage_ids]
            assert any(finding.claim in " ".join(t.split()) for t in texts), finding.claim
    for belief in state.beliefs:
        assert 0 <= belief.confidence <= 1 and belief.citations
    cited_sections = {c.location.rsplit(" > ", 1)[-1] for c in state.passages.values()}
    assert "Why it failed" in cited_sections  # why the 1858 cable failed is found
    assert "grapnel" in state.report  # and how faults are repaired
    artefacts = {e.path for e in sandbox.list() if not e.is_dir}
    assert {"plan.md", "final_report.md"} <= artefacts and any(a.startswith("notes/") for a in artefacts)
    assert sandbox.read_text("final_report.md") == state.report


async def test_unanswerable_sub_question_is_a_gap(corpus: Corpus) -> None:
    state = await Engine(corpus, LocalProvider()).run(
        new_state("How are cable landing stations powered, and what do penguins eat in Antarctica?")
    )
    gaps = [g.sub_question for g in state.gaps]
    assert any("penguins" in g for g in gaps)
    assert "## Gaps" in state.report


async def test_resume_after_a_stop_gives_the_same_report(corpus: Corpus) -> None:
    engine = Engine(corpus, LocalProvider())
    straight = await engine.run(new_state(QUESTION))
    stopped = new_state(QUESTION)
    for _ in range(3):  # plan and two gather steps, then "crash"
        await engine.run_step(stopped, engine.next_step(stopped))
    saved = stopped.model_dump_json()
    resumed = type(stopped).model_validate_json(saved)
    await Engine(corpus, LocalProvider()).run(resumed)
    assert resumed.report == straight.report
    assert resumed.steps_done == straight.steps_done


async def test_partial_report_from_what_was_gathered(corpus: Corpus) -> None:
    engine = Engine(corpus, LocalProvider())
    state = new_state(QUESTION)
    for _ in range(2):
        await engine.run_step(state, engine.next_step(state))
    text = partial_report(state, "aborted at the budget question")
    assert "Partial report" in text and "Not researched" in text and "## Sources" in text


@pytest.mark.parametrize("question", ["", "  ", "ab", "x" * 2001])
def test_bad_questions(question: str) -> None:
    with pytest.raises(InvalidInput):
        new_state(question)


async def test_cost_estimates_are_zero_for_local_and_priced_otherwise(corpus: Corpus) -> None:
    class Flat:
        def cost(self, model: str, input_tokens: int, output_tokens: int) -> float:
            return (input_tokens + output_tokens) / 1_000_000

    engine = Engine(corpus, LocalProvider(), cost_model=Flat())
    state = new_state(QUESTION)
    assert engine.estimate_step_cost(state, "plan") > 0
    await engine.run(state)
    assert state.cost > 0 and len(state.step_records) == len(state.steps_done)
    assert Engine(corpus, LocalProvider()).estimate_step_cost(state, "plan") == 0


class FailingSandbox:
    def __init__(self, error: BaseException) -> None:
        self.error = error

    def write_text(self, path: str, text: str) -> None:
        raise self.error


@pytest.mark.parametrize(
    "error",
    [
        __import__("deepr_mcp.errors", fromlist=["QuotaExceeded"]).QuotaExceeded("this sandbox allows 52,428,800"),
        __import__("deepr_mcp.errors", fromlist=["PathRejected"]).PathRejected(
            "final_report.md", "not_a_directory", "x"
        ),
        OSError(30, "Read-only file system"),
        OSError(28, "No space left on device"),
        RecursionError("maximum recursion depth exceeded"),
    ],
    ids=["quota", "file-where-a-folder-must-be", "read-only-disk", "enospc", "deep-path"],
)
async def test_a_sandbox_that_refuses_writes_costs_the_copy_not_the_research(corpus: Corpus, error: Exception) -> None:
    state = await Engine(corpus, LocalProvider(), sink=FailingSandbox(error)).run(new_state(QUESTION))
    assert state.phase == Phase.COMPLETE and state.report and "## Sources" in state.report
