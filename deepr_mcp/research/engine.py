"""plan → gather (one step per sub-question) → synthesise, one resumable step at a time.

The engine never loops on its own schedule: a runner asks for ``next_step``, may check the
cost estimate against a budget or stop (cancel, pause), then calls ``run_step`` and persists
the returned state. A state saved after any step resumes to the same report as a run that
never stopped, because every step is deterministic given the state and the corpus.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

import anyio

from deepr_mcp.errors import BudgetExceeded, InvalidInput
from deepr_mcp.research.artifacts import ArtifactSink, copy_to_sandbox
from deepr_mcp.research.key_words import key_words
from deepr_mcp.research.models import EngineEvent, Phase, ResearchState, StepRecord, SubQuestion
from deepr_mcp.research.passage import Passage, PassageSearch
from deepr_mcp.research.providers import prompts
from deepr_mcp.research.providers.base import (
    AnswerRequest,
    Completion,
    FindingsRequest,
    PlanRequest,
    Provider,
    Request,
    SourcePassage,
    StatedFinding,
)
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.research.reading.analysis import (
    QuestionAnalysis,
    analyse,
    context_of,
    is_safety_sub_question,
    sub_questions,
)
from deepr_mcp.research.reading.terms import coverage, terms
from deepr_mcp.research.retrieval.hybrid import HybridSearch, Mode
from deepr_mcp.research.retrieval.lexical import Retriever, key_terms
from deepr_mcp.research.shares import findings_per_part, passages_per_part
from deepr_mcp.research.sources import EvidenceSource, gather_from
from deepr_mcp.research.synthesis import citations
from deepr_mcp.research.synthesis.closeness import lead_closeness
from deepr_mcp.research.synthesis.coverage import Coverage, TermCoverage
from deepr_mcp.research.synthesis.report import answer_findings, beliefs_and_gaps, partial_report, render_report
from deepr_mcp.research.synthesis.standing import PartStanding
from deepr_mcp.research.synthesis.verify import Floor, verify_answer, verify_findings

logger = logging.getLogger(__name__)

__all__ = ["Engine", "beliefs_and_gaps", "copy_to_sandbox", "new_state", "partial_report", "render_report"]

PLAN = "plan"
SYNTHESISE = "synthesise"
GATHER_PREFIX = "gather:"
MAX_OUTPUT_TOKENS = {PLAN: 300, SYNTHESISE: 600, GATHER_PREFIX: 700}
"""Each step's ``max_tokens``: the output cost of a step can never exceed this."""
PASSAGE_MAX_CHARS = 1100


class CostModel(Protocol):
    def cost(self, model: str, input_tokens: int, output_tokens: int) -> float: ...


def new_state(question: str, *, max_sub_questions: int = 5, passages_per_question: int = 10) -> ResearchState:
    question = " ".join(question.split())
    if len(question) < 3:
        raise InvalidInput("the research question is empty or too short; ask a question of at least 3 characters")
    if len(question) > 2000:
        raise InvalidInput(f"the research question is {len(question)} characters; at most 2000 are allowed")
    return ResearchState(
        question=question, max_sub_questions=max_sub_questions, passages_per_question=passages_per_question
    )


def upper_tokens(text: str) -> int:
    """A deliberate over-estimate of a prompt's tokens (UTF-8 bytes / 3, plus framing).

    Typical English runs about 4 characters a token; budgeting on 3 keeps an estimate an upper
    bound, which is what "never spend past the budget" needs.
    """
    return len(text.encode("utf-8")) // 3 + 50


def kind_of(step: str) -> str:
    return GATHER_PREFIX if step.startswith(GATHER_PREFIX) else step


class Engine:
    def __init__(
        self,
        corpus: PassageSearch,
        provider: Provider,
        cost_model: CostModel | None = None,
        sink: ArtifactSink | None = None,
        search: HybridSearch | None = None,
        sources: Sequence[EvidenceSource] = (),
        retrieval: Mode = "hybrid",
        coverage: Coverage | None = None,
    ) -> None:
        self.corpus = corpus
        self.coverage = coverage or TermCoverage()
        """Judges whether the cited evidence answers a sub-question (a gap when it does not)."""
        self.sources = sources
        """Asked beside the corpus for every sub-question (``[[research.sources]]``)."""
        self.retriever = Retriever(corpus, search, retrieval)  # search: meaning beside words (retrieval mode)
        self.standing = PartStanding(self.coverage, corpus, self.retriever.search)
        """Whether each part is answered by what was cited for it (or under another part)."""
        self.provider = provider
        self.cost_model = cost_model
        self.sink = sink
        self.spend_limit: float | None = None
        """When set, a call whose worst-case cost would pass it raises ``BudgetExceeded`` unsent."""

    # -- step plan -------------------------------------------------------------------------

    def steps(self, state: ResearchState) -> list[str]:
        if PLAN not in state.steps_done:
            return [PLAN]
        return [PLAN, *(GATHER_PREFIX + sq.id for sq in state.sub_questions), SYNTHESISE]

    def next_step(self, state: ResearchState) -> str | None:
        return next((s for s in self.steps(state) if s not in state.steps_done), None)

    def progress(self, state: ResearchState) -> float:
        total = len(self.steps(state)) if PLAN in state.steps_done else state.max_sub_questions + 2
        return round(min(1.0, len(state.steps_done) / total), 4)

    def phase_for(self, step: str | None) -> Phase:
        if step is None:
            return Phase.COMPLETE
        if step == PLAN:
            return Phase.PLANNING
        if step == SYNTHESISE:
            return Phase.SYNTHESIZING
        return Phase.EXECUTING

    def describe(self, state: ResearchState, step: str | None) -> str | None:
        if step is None:
            return None
        if step.startswith(GATHER_PREFIX):
            sq = self._sub_question(state, step)
            return f"gathering evidence: {sq.text}"
        return {PLAN: "planning sub-questions", SYNTHESISE: "writing the cited report"}[step]

    def estimate_step_cost(self, state: ResearchState, step: str) -> float:
        """An upper bound in dollars: prompt size from the state, output at the step's ``max_tokens``."""
        if self.cost_model is None:
            return 0.0
        if step == PLAN:
            prompt = 600 + len(state.question)
        elif step == SYNTHESISE:
            claims = sum(len(f.claim) + 12 for sq in state.sub_questions for f in sq.findings)
            prompt = 600 + len(state.question) + claims
        else:
            passages = passages_per_part(state) + sum(s.limit for s in self.sources)
            prompt = 800 + passages * (PASSAGE_MAX_CHARS + 120)
        tokens = prompt // 3 + 50
        return self.cost_model.cost(self.provider.model, tokens, MAX_OUTPUT_TOKENS[kind_of(step)])

    def event(self, state: ResearchState) -> EngineEvent:
        step = self.next_step(state)
        return EngineEvent(
            phase=self.phase_for(step),
            progress=self.progress(state),
            active_task=self.describe(state, step),
            cost=state.cost,
            step=step,
        )

    # -- running ---------------------------------------------------------------------------

    async def run_step(self, state: ResearchState, step: str) -> EngineEvent:
        """Run one step on ``state`` in place; the state is consistent whether or not it finishes."""
        if step in state.steps_done:
            return self.event(state)
        state.phase = self.phase_for(step)
        if step == PLAN:
            await self._plan(state)
        elif step == SYNTHESISE:
            await self._synthesise(state)
        else:
            await self._gather(state, self._sub_question(state, step))
        state.steps_done.append(step)
        if self.next_step(state) is None:
            state.phase = Phase.COMPLETE
        return self.event(state)

    async def run(
        self, state: ResearchState, on_event: Callable[[EngineEvent], Awaitable[None]] | None = None
    ) -> ResearchState:
        """Run every remaining step; for callers with no budget or stop logic (the CLI)."""
        while (step := self.next_step(state)) is not None:
            event = await self.run_step(state, step)
            if on_event is not None:
                await on_event(event)
        return state

    async def _complete(self, state: ResearchState, step: str, request: Request) -> Completion:
        max_tokens = MAX_OUTPUT_TOKENS[kind_of(step)]
        if self.cost_model is not None and self.spend_limit is not None:
            prompt_tokens = sum(upper_tokens(m.content) for m in prompts.messages_for(request))
            upper = self.cost_model.cost(self.provider.model, prompt_tokens, max_tokens)
            if state.cost + upper > self.spend_limit:
                raise BudgetExceeded(
                    f"step {step} could cost up to ${upper:.4f}; ${state.cost:.4f} of ${self.spend_limit:.4f} is spent"
                )
        completion = await self.provider.research(request, max_tokens=max_tokens)
        cost = 0.0
        if self.cost_model is not None:
            cost = self.cost_model.cost(
                completion.model or self.provider.model, completion.usage.input_tokens, completion.usage.output_tokens
            )
        state.step_records.append(
            StepRecord(
                step=step,
                provider=completion.provider or self.provider.name,
                model=completion.model or self.provider.model,
                input_tokens=completion.usage.input_tokens,
                output_tokens=completion.usage.output_tokens,
                cost=cost,
            )
        )
        return completion

    async def _plan(self, state: ResearchState) -> None:
        analysis = state.analysis = analyse(state.question)
        parts = tuple(sub_questions(analysis, state.max_sub_questions))
        request = PlanRequest(state.question, analysis, parts, state.max_sub_questions)
        completion = await self._complete(state, PLAN, request)
        lines, searches = prompts.parse_plan(completion.text)
        lines = lines[: state.max_sub_questions] or list(parts)
        state.sub_questions = [SubQuestion(id=f"sq{i + 1}", text=text) for i, text in enumerate(lines)]
        known = {q.lower() for q in state.queries}
        state.queries = [*state.queries, *(q for q in searches if q.lower() not in known)]  # the model's words too
        plan = "\n".join(f"{i + 1}. {sq.text}" for i, sq in enumerate(state.sub_questions))
        also = "".join(f"\n- {q}" for q in state.queries)
        searched = f"\nAlso searched for:{also}\n" if also else ""
        kind = f"{analysis.type}{', safety' if analysis.safety else ''}{', yes/no' if analysis.whether else ''}"
        self._write("plan.md", f"# Plan\n\nQuestion: {state.question}\nType: {kind}\n\n{plan}\n{searched}")

    async def _gather(self, state: ResearchState, sq: SubQuestion) -> None:
        analysis = self._analysis(state)
        k = passages_per_part(state)
        evidence = await anyio.to_thread.run_sync(self.retriever.retrieve, sq.text, analysis, k, state.queries)
        hits = [*evidence.passages, *await gather_from(self.sources, sq.text, state, GATHER_PREFIX + sq.id)]
        wanted = terms(sq.text) or set(key_terms(analysis))
        sq.evidence = round(max((coverage(wanted, f"{h.location} {h.text}") for h in hits), default=0.0), 4)
        action = analysis.action if analysis.type == "how_to" else ""
        floor = Floor(sq.text, wanted | set(key_terms(analysis)), state.question, action, evidence.meant)
        shown = [h for h in hits if floor.shows(h)]  # the model never reads what cannot be a finding
        numbered = [(i + 1, h) for i, h in enumerate(shown)]
        request = FindingsRequest(
            question=state.question,
            analysis=analysis,
            sub_question=sq.text,
            passages=tuple(SourcePassage(n, h.id, _where(h), h.text) for n, h in numbered),
            key_terms=tuple(key_words(analysis)),
            related=tuple(evidence.related),
            known=tuple([f.claim for other in state.sub_questions if other is not sq for f in other.findings][:20]),
            safety=is_safety_sub_question(sq.text, analysis),
            max_findings=findings_per_part(state),
            other_parts=tuple(other.text for other in state.sub_questions if other is not sq),
            part=analyse(sq.text) if len(analysis.clauses) > 1 else None,
            meant=tuple(n for n, h in numbered if h.id in evidence.meant),
            context=context_of(sq.text, analysis),
        )
        completion = await self._complete(state, GATHER_PREFIX + sq.id, request)
        checked = verify_findings(prompts.parse_findings(completion.text), shown, wanted, floor)
        checked.findings = checked.findings[: request.max_findings]  # in the provider's order, best first
        read_by_model = bool(checked.findings) and (completion.provider or self.provider.name) != LocalProvider.name
        verdict = self.standing.judge(state, sq, analysis, hits, checked.findings, evidence.meant, read_by_model)
        by_id = {h.id: h for h in hits}
        for finding in [*sq.findings, *sq.near]:
            for pid in finding.passage_ids:
                h = by_id[pid]
                state.cite(h.id, h.source, h.location, h.text[:200])
        sq.nearest = "" if sq.findings or sq.near or not hits else _where(hits[0])  # near ones are listed
        if verdict.answered:
            sq.status = "answered"
        else:
            sq.status = "weak" if sq.findings else "unanswered"
        notes = [f"# {sq.text}", "", f"evidence: {sq.evidence:.2f}, status: {sq.status}", ""]
        if evidence.related:
            notes.append(f"related terms from the corpus: {', '.join(evidence.related)}")
        if checked.unsupported:
            notes.append(f"dropped as unsupported by any passage shown: {checked.unsupported!r}")
        if checked.off_question:
            notes.append(f"dropped as not answering the sub-question: {checked.off_question!r}")
        if len(shown) < len(hits):
            notes.append(f"not shown (no sentence answers the sub-question): {len(hits) - len(shown)} passages")
        notes += [
            f"- {f.claim} (confidence {f.confidence:.2f}; passages {', '.join(f.passage_ids)})" for f in sq.findings
        ]
        notes += [f"- near, not an answer: {f.claim} (passages {', '.join(f.passage_ids)})" for f in sq.near]
        notes += ["", "## Retrieved passages", ""]
        notes += [f"[{n}] {h.source} {h.location} (score {h.score:.3f})\n{h.text}\n" for n, h in numbered]
        self._write(f"notes/{sq.id}.md", "\n".join(notes))

    async def _synthesise(self, state: ResearchState) -> None:
        state.beliefs, state.gaps = beliefs_and_gaps(state)
        analysis = self._analysis(state)
        embedder = self.retriever.search.embedder if self.retriever.search is not None else None
        said = [answer_findings(state, sq) for sq in state.sub_questions]
        claims = [[f.claim for f in found] for found in said]
        near = await anyio.to_thread.run_sync(lead_closeness, embedder, state.question, claims)
        groups = tuple(
            (sq.text, tuple(StatedFinding(f.claim, tuple(numbers(state, f)), f.code, near.get(f.claim)) for f in found))
            for sq, found in zip(state.sub_questions, said, strict=True)
        )
        lines = [f.cited for _, group in groups for f in group]
        request = AnswerRequest(state.question, analysis, groups, tuple(key_words(analysis)))
        completion = await self._complete(state, SYNTHESISE, request)
        known = {c.number for c in state.passages.values()}
        answer = citations.strip_unknown_citations(completion.text.strip(), known)
        state.answer = verify_answer(answer, lines)
        state.report = render_report(state, state.answer)
        self._write("final_report.md", state.report)

    @staticmethod
    def _analysis(state: ResearchState) -> QuestionAnalysis:
        if state.analysis is None:  # a state saved before question analysis existed
            state.analysis = analyse(state.question)
        return state.analysis

    def _sub_question(self, state: ResearchState, step: str) -> SubQuestion:
        wanted = step.removeprefix(GATHER_PREFIX)
        return next(sq for sq in state.sub_questions if sq.id == wanted)

    def _write(self, path: str, text: str) -> None:
        copy_to_sandbox(self.sink, path, text)


def _where(passage: Passage) -> str:
    return f"{passage.source}, {passage.location}" if passage.location else passage.source


def numbers(state: ResearchState, finding: object) -> list[int]:
    """A finding's citation numbers in the report."""
    return [state.passages[p].number for p in finding.passage_ids if p in state.passages]  # type: ignore[attr-defined]
