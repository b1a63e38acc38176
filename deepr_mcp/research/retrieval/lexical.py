"""Evidence for a sub-question: a wide candidate pool, re-scored for the question, then diversified.

Plain BM25 over the sub-question's words misses evidence phrased differently ("overheating"
against "the casing must stay below 60 degrees") and returns five near-copies of one paragraph. So:

1. the pool comes from several corpus searches: the sub-question, the whole question's key terms,
   each compared side on its own, and the phrasings the calling agent gave (``queries``);
2. pseudo-relevance feedback: words that are frequent in the best few passages and rare in the
   rest of the pool (the corpus's own vocabulary for the topic) widen the pool;
3. every candidate is scored by BM25 on the weighted terms (sub-question > question > feedback),
   its headings counting as extra occurrences, with corpus-wide rarity; a section headed by what
   the question names is raised; a sub-question that names both sides of a comparison prefers
   passages that speak of both, and every score is scaled by the share of the main terms the
   passage holds (coordination, ``signals``);
4. by meaning too (``research.retrieval``, default hybrid): the embedder's nearest passages join
   the pool, and the pool's word ranking is fused (reciprocal rank) with its ranking by cosine to
   the sub-question and to the agent's phrasings, meaning counting three times as much: the
   embedder, not a word list, bridges the user's words and the documentation's;
5. maximal marginal relevance picks passages that add something the others do not say.

No word lists: which words matter comes from the question's structure and the corpus's statistics.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deepr_mcp.embedding.context import queries_in_context
from deepr_mcp.research.passage import Passage, PassageSearch
from deepr_mcp.research.reading.analysis import QuestionAnalysis, context_of
from deepr_mcp.research.reading.terms import GENERIC
from deepr_mcp.research.retrieval.diversity import mmr
from deepr_mcp.research.retrieval.feedback import feedback_terms
from deepr_mcp.research.retrieval.hybrid import RRF_K, HybridSearch, Mode, rank_fusion
from deepr_mcp.research.retrieval.signals import COORD_POWER, COVER_BOOST, coordination, covered, names_all, sides
from deepr_mcp.text.tokenizer import STOP_WORDS, tokenize

POOL_PER_QUERY = 60
SEMANTIC_PER_QUERY = 30
"""Nearest passages by meaning added to the pool per phrasing (the sub-question and the agent's queries)."""
MEANT_SPREAD = 3.0
"""How far above a query's mean cosine to the corpus (in standard deviations) a passage must be to count
as found by meaning: a scale of the corpus's own cosines, not a cosine (MiniLM's sit high on any text)."""
WEIGHT_ASKED = 1.0
"""A term of the sub-question or of the whole question (a compound question's other clauses weigh
``WEIGHT_OPTIONAL``): measured equal to weighing the question's terms 0.8 on every corpus of the bench."""
WEIGHT_FEEDBACK = 0.35
WEIGHT_OPTIONAL = 0.3
"""A question-frame word, or the other clause's terms in a compound question: below ``signals.COORD_MIN_WEIGHT``,
so a passage lacks nothing for not holding it."""
HEADING_WEIGHT = 1.5
"""A heading term counts as this many extra occurrences for each of: the heading path, the page title,
the nearest heading ("Cooling the kiln"): headings say densely what a passage is about."""
NAMED_BOOST = 1.3
"""A section headed by exactly what the question names ("Glossary > generator")."""
FIRST_STAGE_SHARE = 0.2
"""Share of the final score kept from the corpus's own BM25 rank (it knows corpus-wide word rarity)."""
RESEARCH_MEANING_WEIGHT = 3.0
"""What a candidate's rank by meaning counts for, against 1 for its rank by the pool's word score, when research
fuses them (``_fuse``). The pool's word score already holds the question's words, its headings, its compared
sides and the corpus's rarity; the rank by meaning is what bridges the user's words and the documents'. Counted
once, a report found less than meaning alone: on the 559 answerable dev questions (every used set, rover,
wayfarer, pilgrim) report recall was 0.389 at 1, 0.408 at 2, 0.410 at 3 (+53/-30 questions against 1; higher on
every corpus) and 0.414 at 5 (+20/-15 against 3: a plateau, where words keep less say), against 0.400 by meaning
alone (``semantic``)."""


@dataclass(frozen=True, slots=True)
class Evidence:
    passages: list[Passage]
    related: list[str]
    """The words the feedback step took from the corpus (shown to the model as related terms)."""
    meant: frozenset[str] = frozenset()
    """Passages (ids) found by meaning: their cosine to the sub-question or to one of the agent's
    phrasings stands out from that query's cosines to the whole corpus (``MEANT_SPREAD`` standard
    deviations above their mean), or an agent's phrasing found them by words and they hold at least two
    thirds of its terms. They speak to the question even where they share none of its words."""


@dataclass(slots=True)
class Candidate:
    passage: Passage
    terms: Counter[str]
    heading: set[str]
    title: set[str]
    """Terms of the page title (the heading path's first part): pages about the query come first."""
    section: set[str]
    """Terms of the nearest heading (the path's last part): what this very passage is about."""
    first_stage: float = 0.0
    score: float = 0.0


def _terms(text: str) -> Counter[str]:
    return Counter(tokenize(text))


def key_terms(analysis: QuestionAnalysis) -> list[str]:
    """The whole question's content terms (stemmed), entities first; template words left out."""
    if analysis.type == "definition":  # "what does bisque mean?": the rest of the question only asks for a definition
        words = " ".join([*analysis.entities, analysis.topic])
    else:
        words = " ".join([*analysis.entities, analysis.action, analysis.concern, analysis.question])
    seen: dict[str, None] = {}
    for term in tokenize(words):
        if term not in GENERIC:
            seen.setdefault(term)
    return list(seen)


class Retriever:
    def __init__(self, corpus: PassageSearch, search: HybridSearch | None = None, mode: Mode = "hybrid") -> None:
        self.corpus = corpus
        self._spelling: dict[str, str] = {}
        self._named: set[str] = set()
        self._found_by: dict[str, list[str]] = {}
        """Each of the agent's phrasings' own word ranking (passage ids), from the pool's search for it."""
        self._sides: list[frozenset[str]] = []
        self.search = search if search is not None and search.semantic_enabled and mode != "lexical" else None
        self.mode: Mode = mode if self.search is not None else "lexical"

    def retrieve(self, sub_question: str, analysis: QuestionAnalysis, k: int, also: Sequence[str] = ()) -> Evidence:
        """The ``k`` passages that best answer ``sub_question`` within ``analysis``'s question.

        ``also``: other phrasings of the question from the calling agent (the documentation's words),
        searched beside it by words and by meaning.
        """
        weights = self._weights(sub_question, analysis)
        self._remember_spelling(" ".join([sub_question, analysis.question, *analysis.entities, analysis.action]))
        self._named = {t for e in analysis.entities for t in tokenize(e)}
        compared = sides(analysis.entities[:2]) if analysis.type == "comparison" else []
        self._sides = compared if names_all(sub_question, compared) else []
        joined = self._compounds(f"{sub_question} {analysis.question}")
        for word in joined:
            for term in tokenize(word):
                weights[term] = max(weights.get(term, 0.0), WEIGHT_ASKED)
        self._remember_spelling(" ".join(joined))
        pool = self._pool(f"{sub_question} {' '.join(joined)}".strip(), analysis, also)
        phrasings = [sub_question, *also]
        vectors = None
        if self.search is not None:  # a later part that refers back ("how hot does that shelf get?") leans on it
            vectors = queries_in_context(self.search.embedder, phrasings, context_of(sub_question, analysis))
        meaning = self.search.nearest(vectors, SEMANTIC_PER_QUERY) if self.search is not None else []
        for hits in meaning:
            for hit in hits:
                if hit.id not in pool:
                    pool[hit.id] = self._candidate(hit)
        if not pool:
            return Evidence([], [])
        self._score(pool, weights)
        feedback = feedback_terms(pool.values(), weights)
        if feedback:
            extra = " ".join(feedback)
            self._remember_spelling(extra)
            for p in self.corpus.search_passages(f"{sub_question} {extra}", POOL_PER_QUERY):
                if p.id not in pool:
                    pool[p.id] = self._candidate(p)
            weights.update({t: WEIGHT_FEEDBACK for t in tokenize(extra) if t not in weights})
            self._score(pool, weights)
        meant: frozenset[str] = frozenset()
        if self.search is not None:
            meant = self._fuse(vectors, pool)
        if also:
            meant |= self._phrased(also, pool)
        ranked = sorted(pool.values(), key=lambda c: -c.score)
        ranked = ranked[: max(3 * k, 12)]
        chosen = [c.passage for c in mmr(ranked, k)]
        return Evidence(chosen, feedback, meant & {p.id for p in chosen})

    def _compounds(self, text: str) -> list[str]:
        """Two adjacent words written as one where the corpus has that word ("context manager" ->
        "contextmanager", "time out" -> "timeout"): documentation names things in identifiers."""
        counter = getattr(self.corpus, "document_frequency", None)
        if counter is None:
            return []
        words = [w.lower() for w in re.findall(r"[^\W_]+", text)]
        found: list[str] = []
        for a, b in itertools.pairwise(words):
            if a in STOP_WORDS or b in STOP_WORDS or len(a) < 3 or len(b) < 3:
                continue
            word = a + b
            if word not in found and counter(word) > 0:
                found.append(word)
                self._spelling.setdefault(tokenize(word)[0], word)
        return found

    def _remember_spelling(self, text: str) -> None:
        """A word as written for each stem, so the corpus can count it with its own tokenizer."""
        for word in re.findall(r"[^\W_]+", text):
            for stem in tokenize(word):
                self._spelling.setdefault(stem, word.lower())

    # -- the pool ------------------------------------------------------------------------------

    def _pool(self, sub_question: str, analysis: QuestionAnalysis, also: Sequence[str] = ()) -> dict[str, Candidate]:
        queries = [
            sub_question,
            " ".join([*analysis.entities, analysis.action, analysis.concern, analysis.topic]).strip(),
            *also,
        ]
        pool: dict[str, Candidate] = {}
        searches = [(q, False) for q in queries] + [(queries[1] + " " + sub_question, True)]
        if analysis.type == "comparison":  # each side's own evidence, not only what the joint query favours
            searches += [(e, False) for e in analysis.entities[:2]]
        self._found_by = {}
        for query, headings_only in searches:
            # the corpus builds the FTS5 query from the words and drops stop words itself
            hits = list(self.corpus.search_passages(query, POOL_PER_QUERY, headings_only=headings_only))
            if query in also and not headings_only:
                self._found_by[query] = [hit.id for hit in hits]
            top = max((h.score for h in hits), default=0.0) or 1.0
            for hit in hits:
                candidate = pool.get(hit.id) or self._candidate(hit)
                candidate.first_stage = max(candidate.first_stage, hit.score / top)
                pool[hit.id] = candidate
        return pool

    @staticmethod
    def _candidate(passage: Passage) -> Candidate:
        parts = passage.location.split(" > ")
        return Candidate(
            passage,
            _terms(passage.text),
            set(tokenize(passage.location)),
            set(tokenize(parts[0])),
            set(tokenize(parts[-1])) if len(parts) > 1 else set(),
        )

    # -- scoring -------------------------------------------------------------------------------

    @staticmethod
    def _weights(sub_question: str, analysis: QuestionAnalysis) -> dict[str, float]:
        """The sub-question's and the question's terms count fully: the question's keep retrieval on its topic.

        In a compound question ("why did X fail, and how is Y repaired?") the other clause's
        terms would pull in the wrong evidence, so the question's terms count less there.
        """
        weights: dict[str, float] = {}
        question_weight = WEIGHT_ASKED if len(analysis.clauses) < 2 else WEIGHT_OPTIONAL
        for term in key_terms(analysis):
            weights[term] = question_weight
        defined = {t for e in analysis.entities[:1] for t in tokenize(e)} if analysis.type == "definition" else set()
        for term in tokenize(sub_question):
            if term in GENERIC or (defined and term not in defined):
                weights[term] = WEIGHT_OPTIONAL  # "mean" in "what does bisque mean?" asks for a definition
            else:
                weights[term] = max(weights.get(term, 0.0), WEIGHT_ASKED)
        return weights

    def _score(self, pool: dict[str, Candidate], weights: dict[str, float]) -> None:
        """BM25 over the pool with weighted query terms (a heading counts as extra occurrences),
        blended with the corpus search's own rank."""
        n, df = self._rarity(pool, weights)
        named = self._named
        lengths = [sum(c.terms.values()) for c in pool.values()]
        average = sum(lengths) / max(1, len(lengths)) or 1.0
        raw = []
        for candidate, length in zip(pool.values(), lengths, strict=True):
            score = 0.0
            for term, weight in weights.items():
                tf = candidate.terms.get(term, 0) + HEADING_WEIGHT * (
                    (term in candidate.heading) + (term in candidate.title) + (term in candidate.section)
                )
                if tf:
                    idf = math.log(1 + (n - df.get(term, 0) + 0.5) / (df.get(term, 0) + 0.5))
                    score += weight * idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average))
            core = candidate.section - GENERIC  # "Glaze Recipes": glaze
            if named and core and core <= named:
                score *= NAMED_BOOST
            if self._sides and covered(candidate.terms.keys(), self._sides) == len(self._sides):
                score *= COVER_BOOST
            score *= coordination(weights, candidate.terms.keys() | candidate.heading) ** COORD_POWER
            raw.append(score)
        top = max(raw, default=0.0) or 1.0
        for candidate, score in zip(pool.values(), raw, strict=True):
            candidate.score = (1 - FIRST_STAGE_SHARE) * score / top + FIRST_STAGE_SHARE * candidate.first_stage

    def _rarity(self, pool: dict[str, Candidate], weights: dict[str, float]) -> tuple[int, dict[str, int]]:
        """Passage count and document frequency per term, corpus-wide when the corpus can tell.

        Inside a pool gathered for the query every query term is common, so pool-local rarity
        would flatten exactly the differences that matter ("log" against "file").
        """
        counter = getattr(self.corpus, "document_frequency", None)
        total = getattr(self.corpus, "passage_count", None)
        if counter is not None and total is not None:
            n = total()
            return n, {t: counter(self._spelling.get(t, t)) for t in weights}
        local = Counter(t for c in pool.values() for t in (c.terms.keys() | c.heading) & weights.keys())
        return len(pool), dict(local)

    def _fuse(self, queries: Any, pool: dict[str, Candidate]) -> frozenset[str]:
        """Each candidate's score becomes the reciprocal-rank fusion of its word rank and its meaning rank, meaning
        weighing ``RESEARCH_MEANING_WEIGHT``; returns the candidates found by meaning (``Evidence.meant``).

        Meaning is the best cosine to any phrasing (``queries``: their vectors, one row each); a passage not
        embedded yet keeps its word rank alone. ``semantic`` mode ranks by meaning alone (embedded passages first).
        """
        assert self.search is not None
        candidates = list(pool.values())
        stored = self.search.corpus.vectors_of(self.search.embedder.name, [c.passage.id for c in candidates])
        dense = {pid: float((queries @ vector).max()) for pid, vector in stored.items()}
        meant = self._meant(queries, stored)
        by_meaning = sorted(dense, key=lambda pid: -dense[pid])
        by_words = [c.passage.id for c in sorted(candidates, key=lambda c: -c.score)]
        rankings, weights = [by_meaning], [RESEARCH_MEANING_WEIGHT]
        if self.mode != "semantic":
            rankings, weights = [by_words, by_meaning], [1.0, RESEARCH_MEANING_WEIGHT]
        fused = rank_fusion(rankings, RRF_K, weights)
        top = max(fused.values(), default=0.0) or 1.0
        for candidate in candidates:
            candidate.score = fused.get(candidate.passage.id, 0.0) / top
        return meant

    def _phrased(self, also: Sequence[str], pool: dict[str, Candidate]) -> frozenset[str]:
        """Fuse each of the agent's phrasings' own word ranking into the candidates' scores, and return the
        passages a phrasing finds holding at least two thirds of its terms (both of two: "NO_BEEP option" is
        not answered by every passage about an option).

        A phrasing is the question in the documentation's words: the passage it finds may share no word with
        the user's question, so weighing the pool by the question's words alone would bury it, and the floor
        (``verify.Floor``) would hide it from the model. Such a passage counts as found by meaning
        (``Evidence.meant``): on the topic whatever words it uses.
        """
        by_score = sorted(pool.values(), key=lambda c: -c.score)
        fused = {c.passage.id: 1.0 / (RRF_K + rank) for rank, c in enumerate(by_score, start=1)}
        found: set[str] = set()
        for phrasing in also:
            wanted = set(tokenize(phrasing)) - GENERIC
            for rank, pid in enumerate(self._found_by.get(phrasing, []), start=1):
                candidate = pool.get(pid)
                if candidate is None:
                    continue
                fused[pid] += 1.0 / (RRF_K + rank)
                held = wanted & (candidate.terms.keys() | candidate.heading)
                if wanted and 3 * len(held) >= 2 * len(wanted):
                    found.add(pid)
        top = max(fused.values(), default=0.0) or 1.0
        for candidate in pool.values():
            candidate.score = fused[candidate.passage.id] / top
        return frozenset(found)

    def _meant(self, queries: Any, stored: dict[str, Any]) -> frozenset[str]:
        """The stored passages whose cosine to some phrasing stands ``MEANT_SPREAD`` deviations above
        that phrasing's mean cosine to every passage of the corpus (``queries``: one row per phrasing)."""
        assert self.search is not None
        spread_of = getattr(self.search.corpus, "cosine_spread", None)
        if spread_of is None or not stored:
            return frozenset()
        floors = []
        for query in queries:
            mean, deviation = spread_of(self.search.embedder.name, query)
            floors.append(mean + MEANT_SPREAD * deviation if deviation > 0 else float("inf"))
        return frozenset(
            pid
            for pid, vector in stored.items()
            if any(float(query @ vector) >= floor for query, floor in zip(queries, floors, strict=True))
        )
