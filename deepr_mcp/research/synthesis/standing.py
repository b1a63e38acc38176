"""Whether a part of the question is answered by what was cited for it, or by what other parts cited.

One use case with every judge in its order: the words the part asks about (``Coverage``), whether the
cited passages stand out by meaning, names no passage writes, a figure when the part asks for one, and,
when the part's own findings do not answer it, the findings already reported under another part.
The engine gathers; this decides what the report may claim, and records on the part what its Gaps
line needs (``missing``, ``no_figure``, ``unmentioned``, ``covered_by``).
"""

from __future__ import annotations

from collections.abc import Sequence

from deepr_mcp.research.models import Finding, ResearchState, SubQuestion
from deepr_mcp.research.passage import Passage, PassageSearch
from deepr_mcp.research.reading.analysis import QuestionAnalysis, asked_of, sides_of
from deepr_mcp.research.reading.figures import unfigured
from deepr_mcp.research.reading.terms import terms
from deepr_mcp.research.retrieval.hybrid import HybridSearch
from deepr_mcp.research.synthesis.coverage import Coverage, Verdict, figure_checked, settle
from deepr_mcp.research.synthesis.meaning import by_meaning, heavy_words
from deepr_mcp.research.synthesis.unmentioned import unmentioned, unwritten

__all__ = ["PartStanding"]


OWN_TERMS = 1
"""A part with at most this many content words of its own ("What should I use instead?", "Is there any catch?")
means nothing alone: the meaning judge reads it leaning on the whole question. On the 617 dev questions, Gaps in
reports that found gold 54 -> 47, every other figure unchanged; leaning every part that refers back ("it", "that")
on the clause before instead cost 3 of 60 unasked halves their Gaps line."""


def leaning(sq: SubQuestion, state: ResearchState) -> str:
    """What a part is read leaning on when judged by meaning: the whole question for a part too bare to stand
    alone, else nothing (a part with words of its own is judged on them: leaning on the question, an unasked
    half such as "can I open it in my file manager?" would borrow the answered half's meaning)."""
    if len(state.sub_questions) > 1 and len(terms(sq.text)) <= OWN_TERMS:
        return state.question
    return ""


class PartStanding:
    """Judges one part against its cited passages, then against what the other parts cited."""

    def __init__(self, coverage: Coverage, corpus: PassageSearch, search: HybridSearch | None) -> None:
        self.coverage = coverage
        self.corpus = corpus
        self.search = search

    def judge(
        self,
        state: ResearchState,
        sq: SubQuestion,
        analysis: QuestionAnalysis,
        hits: Sequence[Passage],
        findings: list[Finding],
        meant: frozenset[str],
        read_by_model: bool,
    ) -> Verdict:
        """The part's verdict; sets ``sq.findings`` (none when they are off its topic and other parts exist:
        then they are ``sq.near``), ``sq.unmentioned``, ``sq.no_figure``, ``sq.missing`` and ``sq.covered_by``."""
        by_id = {h.id: h for h in hits}
        cited = [by_id[pid] for f in findings for pid in f.passage_ids]
        pool = [f"{h.location} {h.text}" for h in hits]
        asked = asked_of(sq.text, analysis)
        sides = sides_of(sq.text)
        verdict = self.coverage.judge(asked, [f"{h.location} {h.text}" for h in cited], pool, sides)
        # a part whose cited passages say nothing of what sets it apart is answered by them only in words
        # it shares with the other parts: they are not listed under it; a question of one part keeps what
        # was found, as passages near it, beside the Gaps line
        sq.unmentioned = unmentioned(self.corpus, sq.text, [h.text for h in hits])
        verdict = settle(
            verdict,
            sides=bool(sides),
            found_by_meaning=any(h.id in meant for h in cited),
            meaning=self.meaning(state, sq, [h.id for h in cited]),
            unmentioned=bool(sq.unmentioned),
            read_by_model=read_by_model,
        )
        figured = not unfigured(sq.text, state.question, [f"{f.claim} {f.code or ''}" for f in findings])
        verdict = figure_checked(verdict, figured=figured, sides=bool(sides))
        sq.no_figure = verdict.unfigured
        off_topic = verdict.off_topic and len(state.sub_questions) > 1
        sq.findings, sq.near = ([], findings) if off_topic else (findings, [])
        # the Gaps line names only missing words that carry the part's meaning (not an idiom's, not an aside's)
        # and that the documents never write: "the documents say nothing about" is a claim about all of them
        heavy = None
        if self.search is not None and verdict.missing and not sides:
            heavy = heavy_words(self.search.embedder, asked)
        sq.missing = unwritten(self.corpus, verdict.missing, [h.text for h in hits], heavy)
        if not verdict.answered:
            verdict = self._answered_above(state, sq, asked, pool, verdict)
        return verdict

    def _answered_above(
        self, state: ResearchState, sq: SubQuestion, asked: str, pool: list[str], verdict: Verdict
    ) -> Verdict:
        """The answer may already be reported under another part, from passages cited there (never for a
        name no passage writes: a passage cited above does not answer that either)."""
        earlier = [
            (f, state.passages[p])
            for o in state.sub_questions
            if o is not sq
            for f in o.findings
            for p in f.passage_ids
            if p in state.passages
        ]
        above = self.coverage.judge(
            asked, [f"{c.location} {f.claim} {c.quote}" for f, c in earlier], pool, sides_of(sq.text)
        )
        cited_above = [c.passage_id for _, c in earlier]
        meant_above = not sq.unmentioned and self.meaning(state, sq, cited_above) is not False
        figured = not unfigured(sq.text, state.question, [f"{f.claim} {f.code or ''}" for f, _ in earlier])
        if not (above.answered and meant_above and figured):
            return verdict
        sq.covered_by = list(dict.fromkeys(c.passage_id for _, c in earlier))
        sq.missing, sq.no_figure = [], False
        sq.near = []  # answered above: nothing near it is listed, so none of its passages is cited
        return above

    def meaning(self, state: ResearchState, sq: SubQuestion, passage_ids: list[str]) -> bool | None:
        """Whether a cited passage stands out by meaning for the part, a bare part read leaning on the question
        (``leaning``) (``None``: the judge abstains)."""
        if sides_of(sq.text):  # a comparison's sides are judged by what the evidence names of each
            return None
        several = len(state.sub_questions) > 1
        verdict = by_meaning(self.search, sq.text, state.question, passage_ids, leaning(sq, state), several=several)
        if verdict is False and state.queries:
            # the agent's phrasings say what the question means in the documents' words: a passage that stands
            # out for one of them answers it too
            verdict = any(by_meaning(self.search, q, q, passage_ids) for q in state.queries)
        return verdict
