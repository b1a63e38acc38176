"""The embedded default: extractive research with no network, no key, no cost.

It answers the engine's three typed requests by rules over their data (never by reading a prompt):
the plan is the parts the engine's analysis found; findings are the passage sentences
(with the code they introduce) ranked best by the sub-question's and the question's key terms,
by meaning and by their passage's place in retrieval, fused (``fused``), warnings first when the
question asks how to do something safely; the direct answer picks the
strongest findings for the whole question. Deterministic, so a resumed run gives the same report
as an uninterrupted one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

import anyio

from deepr_mcp.embedding.base import Embedder
from deepr_mcp.research.providers import prompts
from deepr_mcp.research.providers.base import (
    AnswerRequest,
    Completion,
    FindingsRequest,
    PlanRequest,
    Request,
    Usage,
)
from deepr_mcp.research.providers.local_answer import answer_text
from deepr_mcp.research.reading.cues import ADMONITIONS, ANSWER_CUES, CAVEAT, OPENS_WITH_VERSION_NOTE
from deepr_mcp.research.reading.terms import terms
from deepr_mcp.research.retrieval.hybrid import rank_fusion
from deepr_mcp.research.synthesis.claims import Unit, adds_nothing, same_claim, units
from deepr_mcp.research.synthesis.closeness import sentence_closeness
from deepr_mcp.research.synthesis.relevance import (
    answers,
    ask_of_question,
    dangling,
    names_action,
    off_subject,
    off_task,
    pointer,
    stray_change_note,
)
from deepr_mcp.research.synthesis.shape import only_fields

_ADMONITION = re.compile(r"^(?:" + "|".join(ADMONITIONS) + r")\b\s*:?", re.I)
_ANAPHOR = re.compile(r"^(?:it|this|these|they|that|such|its|their)\b", re.I)
_CONTINUATION = re.compile(r"^(?:and|but|or|nor|so|yet|also|however|otherwise)\b,?", re.I)
"""A sentence opening with a conjunction ("And, if a directory's permissions ...") goes on with the one
before it: alone it is half a statement, so it is read with that sentence or ranked below whole ones."""
CONTINUATION_FACTOR = 0.75

CUE_BONUS = 0.15
SECTION_LEAD_BONUS = 0.3
SECTION_MATCH = 0.5
"""Share of a heading's words the question must use for the heading to count as naming its subject."""
"""For a sentence using the words that answer this kind of question ("because", "rather than")."""
MIN_SENTENCE_CHARS = 25
MAX_FINDINGS = 5
"""Findings for a request with no cap of its own; the engine sets one (``shares.findings_per_part``),
larger for a question planned as few parts, so an open question may say more in each."""
MAX_PER_PASSAGE = 2
"""Lines from one passage, so that one long passage does not fill the part; the passage retrieval ranked first
([1]) may give one more: replayed on the dev sets' recorded findings requests, drafted gold 0.424 -> 0.435,
every corpus up (three from every passage was net zero)."""
MIN_SCORE = 0.3
RELATIVE_FLOOR = 0.5
"""By words alone, a finding must score at least this share of the sub-question's best, or it is filler (fused:
``FUSED_FLOOR``)."""
NEIGHBOUR_SHARE = 0.65
MEANT_COVER = 0.6
"""What a passage found by meaning counts for in term coverage (its own and its sentences'): it speaks
to the question as a passage holding most of its words would, whatever words it uses."""
MAX_CLAIM_CHARS = 420
FUSED_FLOOR = 0.4
"""Ranked by words, meaning and place together (``fused``), a finding must score this share of the part's best:
about a sentence ranked 17th in all three orders, or first in one and far down the others. Replayed on the 559
recorded questions: no floor kept 0.389 / 0.421 of the gold (older / newer sets) in 416 / 408 words a report,
0.4 kept 0.388 / 0.417 in 401 / 396, 0.5 (the floor by words) 0.365 / 0.405 in 339 / 345; by words alone,
0.370 / 0.355 in 369 / 367."""
FUSION_K = 10
"""Reciprocal rank fusion's constant for a part's sentences (``fused``): a hundred or two, not a corpus's
passages (``retrieval.hybrid.RRF_K``), so the top ranks count for more. Measured by replaying the findings step
on 559 bench questions' recorded requests: every K from 5 to 30, and each order counted half or one and a half
times, gave evidence recall within 0.015 of each other; all three counted once, K 10, is kept."""

CAUTION_SLOTS = 2
"""For a part of a question about risk: its best-ranked sentences that caution ("must not", "Warning:") not already
said, beyond the floor and the cap. The docs' caveat often sits in a passage retrieval ranked low. Replayed on the
559 dev questions' findings requests: the docs' warning drafted for 53 -> 58 of 110 (whole runs: unsafe 57 -> 55)."""

Closeness = Callable[[str, Sequence[str], str], list[float]]
"""Cosines of sentences to a question read in its context (``synthesis.closeness.SentenceCloseness``)."""


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _share(wanted: set[str], have: set[str], weight: dict[str, float] | None = None) -> float:
    """Share of ``wanted`` present in ``have``; with ``weight``, rarer terms count for more."""
    if not wanted:
        return 0.0
    if weight is None:
        return len(wanted & have) / len(wanted)
    # math.fsum: a sum over a set in the order the process's string hashing gives would round differently run to
    # run, and a tie between two sentences would then break differently: the same request, another report
    total = math.fsum(weight.get(t, 1.0) for t in wanted)
    return math.fsum(weight.get(t, 1.0) for t in wanted & have) / total


def score_unit(
    unit: Unit, rank: int, passage_cover: float, want: dict[str, set[str]], focus: str, idf: dict[str, float]
) -> float:
    """How well one sentence (and its code) answers: its own term coverage, its passage's, its rank."""
    have = terms(f"{unit.text} {unit.code or ''}")
    score = (
        0.3 * _share(want["sub"], have, idf)
        + 0.2 * _share(want["key"], have, idf)
        + 0.3 * passage_cover
        + 0.15 / (1 + rank)
        + 0.05 * bool(want["related"] & have)
    )
    text = unit.text
    if unit.index == 0:
        score += 0.05  # a passage's first sentence usually says what the passage is about
    if "safety" in focus and CAVEAT.search(text):
        score += 0.3
    kind = focus.split(",")[0].strip()
    if kind in ANSWER_CUES and kind != "comparison" and ANSWER_CUES[kind].search(text):
        # a comparison is answered by what is said of each side, not by a contrast word ("instead")
        score += CUE_BONUS
    if unit.code and "how_to" in focus:
        score += 0.1
    if _CONTINUATION.match(text):
        score *= CONTINUATION_FACTOR
    if text.endswith("?"):
        score *= 0.4
    words = len(text.split())
    if words < 6 and not unit.code:
        score *= 0.5
    if len(text) > 450:
        score *= 0.7
    return score


def focus_of(request: FindingsRequest) -> str:
    """The kind of answer wanted, and "safety" when warnings lead: "how_to, safety"."""
    return (request.part or request.analysis).type + (", safety" if request.safety else "")


def best_units(request: FindingsRequest, near: Closeness | None = None) -> list[tuple[Unit, int, float]]:
    """``(unit, passage number, score)``, best first, each sentence once, known facts left out.

    With ``near``, a sentence scores for what it means as well as for the words it shares with the
    sub-question: the question is in the user's words, the passage in the documentation's.

    A chosen sentence takes in its neighbour when the neighbour scores nearly as well ("The ship
    lowers a grapnel. The damaged section is removed..."): a procedure reads as one claim.
    """
    passages = [(p.number, p.location, p.text.strip()) for p in request.passages]
    want = {
        "sub": terms(request.sub_question),
        "key": terms(" ".join(request.key_terms)),
        "related": terms(" ".join(request.related)),
    }
    focus = focus_of(request)
    if focus.startswith("definition") and want["sub"] & want["key"]:
        # "What does COP mean?": "mean" asks for a definition, it is not what is defined
        want["sub"] &= want["key"]
    everything = want["sub"] | want["key"]
    if not everything:
        return []
    held = [terms(f"{location} {text}") for _, location, text in passages]
    idf = {t: math.log(1 + len(held) / (1 + sum(t in h for h in held))) + 0.1 for t in everything}
    known = request.known
    sub_question, question = request.sub_question, request.question
    # every sub-question is a part the reader asked: it takes whatever answers it, warnings for a risk question
    ask = ask_of_question(sub_question)
    asked = request.part or request.analysis
    action = asked.action if asked.type == "how_to" else ""
    others = terms(" ".join(request.other_parts))
    own, elsewhere = want["sub"] - others, others - want["sub"]
    scored: list[tuple[float, int, int, Unit, int]] = []
    by_passage: dict[int, list[tuple[Unit, float]]] = {}
    heading = {number: location.split(", ", 1)[-1] for number, location, _ in passages}
    headed = {number: terms(text) for number, text in heading.items()}
    recipes: set[tuple[int, int]] = set()  # sentences about another task than the how-to's
    meant = set(request.meant)
    for rank, (number, location, text) in enumerate(passages):
        cover = _share(everything, held[rank], idf)
        if number in meant:
            cover = max(cover, MEANT_COVER)
        about = _section_names_subject(location, everything)
        found = units(text)
        recipes |= {(number, found[i].index) for i in off_task(action, [u.text for u in found])}
        for unit in whole_warnings(found):
            if not unit.text or (not unit.code and (len(unit.text) < MIN_SENTENCE_CHARS or only_fields(unit.text))):
                continue  # too short to say anything, or a field list alone ("Default: false Type: Boolean")
            if pointer(unit.text):
                continue  # "See the section on ...": it points elsewhere, not even a neighbour
            value = score_unit(unit, rank, cover, want, focus, idf)
            if number in meant:  # credited with the sub-question's share it lacks in words, up to MEANT_COVER
                value += 0.3 * max(0.0, MEANT_COVER - _share(want["sub"], terms(f"{unit.text} {unit.code or ''}"), idf))
            if about:
                # a section headed by what is asked about: its first sentence is what the
                # documentation says it is ("cone pack: A row of cones that bend at known heats"),
                # which answers a question about what a thing is, not how it does or compares
                lead = unit.index == 0 and asked.type in ("definition", "general")
                value += SECTION_LEAD_BONUS if lead else SECTION_LEAD_BONUS / 3
            scored.append((value, -rank, -unit.index, unit, number))
            by_passage.setdefault(number, []).append((unit, value))
    if near is not None:
        scored = fused(scored, sub_question, near, request.context)
    scored.sort(key=lambda s: (s[0], s[1], s[2]), reverse=True)
    out: list[tuple[Unit, int, float]] = []
    taken: set[tuple[int, int]] = set()
    for value, _, _, unit, number in scored:
        if (number, unit.index) in taken or any(same_claim(unit.text, k) for k in known):
            continue
        if dangling(unit.text, unit.code):
            continue  # "Two problems exist:" with nothing after it; it must not take in a neighbour either
        merged = _with_neighbour(unit, value, by_passage[number], taken, number)
        if _CONTINUATION.match(merged.text):
            continue  # "And, if ..." whose sentence before it is taken elsewhere: half a statement alone
        by_meaning = number in meant
        if not merged.code and not by_meaning and not (terms(merged.text) | headed[number]) & everything:
            continue  # neither it nor its heading says anything of what is asked: filler
        if not answers(ask, merged.text, merged.code, None if by_meaning else everything):
            continue  # on the topic, but not what this sub-question asks for (a warning, an option...)
        if off_subject(question, action, merged.text, heading[number]) or (number, merged.index) in recipes:
            continue  # another year's event, or a recipe for another task than the one asked
        if dangling(merged.text, merged.code) or stray_change_note(merged.text, question, sub_question):
            continue  # "For example:" with nothing after it; a version note where no version is asked
        said = terms(f"{merged.text} {merged.code or ''}")
        if own and len(said & elsewhere) > len(said & own):
            continue  # it speaks to another part of the question ("how are faults repaired"), not this one
        if merged.text and not by_meaning and not names_action(action, merged.text):
            continue  # the question itself takes any kind of statement, but about its task
        if not any(adds_nothing(merged.text, u.text) for u, _, _ in out):
            out.append((merged, number, value))
    return out


def fused(
    scored: list[tuple[float, int, int, Unit, int]], sub_question: str, near: Closeness, context: str = ""
) -> list[tuple[float, int, int, Unit, int]]:
    """``scored`` re-valued by reciprocal rank fusion of three orders of its sentences: by words
    (``score_unit``), by meaning (each sentence's cosine to the sub-question) and by place (its passage's
    rank in retrieval, which fused words and meaning over the corpus, then its place in the passage).

    Users ask in their words and the documentation answers in its own, so no one order finds the answer
    on its own: "Let the kiln cool overnight with its door shut" shares one word with "how do I stop my
    mugs cracking when I unload the kiln", stands close to it in meaning and sits in a passage retrieval
    put near the top. Fusing ranks, as retrieval does, needs no weight between
    a cosine and a share of words. Values are rescaled so the best keeps the best score by words (what
    ``MIN_SCORE`` reads)."""
    if not scored:
        return scored
    cosines = near(sub_question, [s[3].text or s[3].code or "" for s in scored], context)
    indices = range(len(scored))
    fusion = rank_fusion(
        [
            sorted(indices, key=lambda i: -scored[i][0]),  # by words
            sorted(indices, key=lambda i: -cosines[i]),  # by meaning
            sorted(indices, key=lambda i: (-scored[i][1], -scored[i][2])),  # by place: passage rank, then sentence
        ],
        FUSION_K,
    )
    best_words, best_fusion = max(s[0] for s in scored), max(fusion.values())
    return [(best_words * fusion[i] / best_fusion, *scored[i][1:]) for i in indices]


def whole_warnings(found: list[Unit]) -> list[Unit]:
    """A warning with the sentence after it, as one unit: "Warning: The lid is hot.
    Open it only below 100 degrees." is one statement, scored and quoted whole."""
    out: list[Unit] = []
    skip = False
    for i, unit in enumerate(found):
        if skip:
            skip = False
            continue
        after = found[i + 1] if i + 1 < len(found) else None
        if (
            _ADMONITION.match(unit.text)
            and unit.code is None
            and after is not None
            and after.text
            and not _ADMONITION.match(after.text)
            and not OPENS_WITH_VERSION_NOTE.match(after.text)  # "Changed in version 3.2: ..." is a note of its own
            and len(unit.text) + len(after.text) <= MAX_CLAIM_CHARS
        ):
            out.append(Unit(f"{unit.text} {after.text}", after.code, unit.index))
            skip = True
        else:
            out.append(unit)
    return out


def _with_neighbour(
    unit: Unit, value: float, siblings: list[tuple[Unit, float]], taken: set[tuple[int, int]], number: int
) -> Unit:
    taken.add((number, unit.index))
    if unit.code:
        return unit
    for other, _ in siblings if _ANAPHOR.match(unit.text) or _CONTINUATION.match(unit.text) else ():
        if other.index == unit.index - 1 and other.code is None and (number, other.index) not in taken:
            # "It is known as the cone pack" says nothing alone: take in what "it" is
            if len(unit.text) + len(other.text) <= MAX_CLAIM_CHARS:
                taken.add((number, other.index))
                return Unit(f"{other.text} {unit.text}", None, other.index)
    for other, other_value in siblings:
        if (
            abs(other.index - unit.index) == 1
            and other.code is None
            and not _ADMONITION.match(other.text)  # a warning is a claim of its own, read whole
            and not dangling(other.text, other.code)  # "Two problems exist:" would leave the claim hanging
            and other_value >= NEIGHBOUR_SHARE * value
            and (number, other.index) not in taken
            and len(unit.text) + len(other.text) <= MAX_CLAIM_CHARS
        ):
            taken.add((number, other.index))
            first, second = sorted((unit, other), key=lambda u: u.index)
            return Unit(f"{first.text} {second.text}", None, first.index)
    return unit


def _section_names_subject(location: str, wanted: set[str]) -> bool:
    """Whether the passage's nearest heading is mostly words the question asks about."""
    heading = location.split(", ", 1)[-1].rsplit(" > ", 1)[-1]
    named = terms(heading)
    return bool(named) and len(named & wanted) / len(named) >= SECTION_MATCH


def _finding(unit: Unit, number: int) -> list[str]:
    return [f"- {unit.text} [{number}]", *(["```", unit.code, "```"] if unit.code else [])]


def findings_text(request: FindingsRequest, near: Closeness | None = None) -> str:
    ranked = best_units(request, near)
    best = ranked[0][2] if ranked else 0.0
    limit = request.max_findings or MAX_FINDINGS  # the engine's cap, when it sets one
    if best < MIN_SCORE:
        return prompts.NO_EVIDENCE
    floor = FUSED_FLOOR * best if near is not None else max(MIN_SCORE, RELATIVE_FLOOR * best)
    lines: list[str] = []
    per_passage: dict[int, int] = {}
    said: set[tuple[int, int]] = set()
    for unit, number, value in ranked:
        if value < floor:
            break
        if per_passage.get(number, 0) >= MAX_PER_PASSAGE + (number == 1):
            continue
        per_passage[number] = per_passage.get(number, 0) + 1
        said.add((number, unit.index))
        lines += _finding(unit, number)
        if sum(per_passage.values()) >= limit:
            break
    if request.safety and lines:
        # after the other findings, not after the first: there they pushed the part's better lines out of the
        # answer (dev sets: unsafe 57 -> 52 of 110, but the Answer held gold 0.424 -> 0.411)
        cautions = [(u, n) for u, n, _ in ranked if (n, u.index) not in said and CAVEAT.search(u.text)]
        for unit, number in cautions[:CAUTION_SLOTS]:
            lines += _finding(unit, number)
    return "\n".join(lines) if lines else prompts.NO_EVIDENCE


class LocalProvider:
    """Implements the ``Provider`` protocol by rules over the typed request's data."""

    name = "local"
    model = "extractive"

    def __init__(self, embedder: Embedder | None = None) -> None:
        """With an embedder (the corpus's own), sentences are chosen by meaning as well as by words."""
        self.near: Closeness | None = None
        if embedder is not None and embedder.dimensions > 0:
            self.near = sentence_closeness(embedder)

    async def research(self, request: Request, *, max_tokens: int = 1024) -> Completion:
        """In a worker thread: the rules are CPU work (a tenth of a second per step on a quiet machine,
        several times that on a loaded one), which on the event loop held up every other request and
        the heartbeat renewing the campaign's lease, so a short lease could lapse mid-step."""
        return await anyio.to_thread.run_sync(self.research_now, request)

    def research_now(self, request: Request) -> Completion:
        """The completion, computed in the calling thread."""
        if isinstance(request, PlanRequest):
            text = "\n".join(request.parts[: request.max_sub_questions])
        elif isinstance(request, FindingsRequest):
            text = findings_text(request, self.near)
        elif isinstance(request, AnswerRequest):
            text = answer_text(request)
        else:
            raise TypeError(f"not a research request: {type(request).__name__}")
        read = sum(estimate_tokens(m.content) for m in prompts.messages_for(request))
        usage = Usage(read, estimate_tokens(text))
        return Completion(text=text, usage=usage, model=self.model, provider=self.name)
