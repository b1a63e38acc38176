"""Whether the evidence a report cites answers a sub-question, and if not, what it says nothing about.

A report must not claim an answer it does not have: "What is the noise level of heat pumps?"
is not answered by passages about heat-pump efficiency, however many words they share with it.
The judge weighs the sub-question's terms by how rare they are among the passages retrieved for
it (a statistic of the corpus, not a word list): "heat" and "pump" are in every one of them and
say little; "noise" is in none and is what the sub-question is about. A sub-question whose weight
lies mostly in terms no retrieved passage uses is a gap, and those terms are what the Gaps line names.

``Coverage`` is the seam: an embedding model (``deepr_mcp/embedding/``) can judge by meaning
instead, behind the same method; ``TermCoverage`` is the default and needs nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from deepr_mcp.research.reading.spelling import spelt_otherwise, words
from deepr_mcp.research.reading.terms import terms

SILENT_SHARE = 0.5
"""A sub-question is a gap when at least this share of its weighted terms occurs in no retrieved passage."""
RELATIONS = frozenset(
    terms(
        "about above across after against along among around before behind below beside between beyond "
        "despite during except inside instead near outside since through toward towards under unless until "
        "upon versus via within without"
    )
)
"""English prepositions and conjunctions (a closed class of the language): they relate what a question
asks about and are never what it is about, so no Gaps line says the documents are silent on "without"."""


@dataclass(frozen=True, slots=True)
class Verdict:
    answered: bool
    share: float
    """Weighted share of the sub-question's terms the evidence holds (0..1)."""
    missing: list[str] = field(default_factory=list)
    """The sub-question's own words for what the evidence says nothing about ("noise level")."""
    off_topic: bool = False
    """The evidence holds none of the sub-question's distinctive terms: it is about something else."""
    unfigured: bool = False
    """It asks for a figure ("how many", "until when") that no finding cited for it gives (``reading.figures``)."""


class Coverage(Protocol):
    def judge(self, question: str, evidence: Sequence[str], pool: Sequence[str], sides: Sequence[str] = ()) -> Verdict:
        """Whether ``evidence`` (the cited passages) answers ``question``; ``pool`` is every passage
        retrieved for it (what rarity is measured against); ``sides`` are the things a comparison
        compares, each of which the evidence must speak of."""
        ...


def weights(wanted: set[str], pool: Sequence[set[str]]) -> dict[str, float]:
    """Inverse document frequency of each wanted term among the retrieved passages."""
    n = len(pool)
    return {t: math.log(1 + (n + 1) / (1 + sum(t in p for p in pool))) for t in wanted}


def phrases(text: str, missing: set[str]) -> list[str]:
    """Runs of the text's words whose terms are all missing ("noise level", "gas boilers"); words
    with no content term ("of", "with") may sit inside a run, never at its ends. A run never crosses
    punctuation: "a kiln log. Which glaze" names two things, not one."""
    out: list[str] = []
    run: list[str] = []
    pending: list[str] = []

    def close() -> None:
        nonlocal run, pending
        if run:
            out.append(" ".join(run))
        run, pending = [], []

    for token in re.findall(r"[\w'.-]+|[,;:?!()]", text):
        word = token.rstrip(".")
        if not word or not (word[0].isalnum() or word[0] in "_'"):
            close()  # a comma, a question mark: the run ends here
            continue
        found = terms(word)
        if found and found <= missing:
            run += [*pending, word]
            pending = []
        elif not found and run:
            pending.append(word)
        else:
            close()
        if word != token:  # a sentence ended on this word
            close()
    close()
    return list(dict.fromkeys(out))  # a thing named twice in the question is named once


def respelt(question: str, term: str, written: set[str]) -> bool:
    """Whether a word of ``question`` with the stem ``term`` is one the ``written`` words spell another way."""
    return any(spelt_otherwise(word, written) for word in words(question) if term in terms(word))


class TermCoverage:
    """The default judge: rarity-weighted term overlap between a sub-question and its evidence.

    A sub-question is a gap when the terms that distinguish it (rarer than the mean among the
    retrieved passages) and occur in none of them carry half its weight: the documents found say
    nothing about it, and those terms are what the Gaps line names. A term the retrieved passages
    use but the cited ones do not is no such statement, so the cited answer stands. A comparison
    is a gap when a compared side is named in none of the cited passages.
    """

    def judge(self, question: str, evidence: Sequence[str], pool: Sequence[str], sides: Sequence[str] = ()) -> Verdict:
        have = terms(" ".join(evidence))
        pooled = [terms(p) for p in pool] or [have]
        if sides:
            absent = [side for side in sides if terms(side) and not terms(side) & have]
            silent = [side for side in absent if not any(terms(side) & p for p in pooled)]
            share = 1.0 - len(absent) / len(sides)
            return Verdict(not absent and bool(evidence), share, silent, len(absent) == len(sides))
        wanted = terms(question) - RELATIONS
        if not wanted:
            return Verdict(bool(evidence), 1.0 if evidence else 0.0)
        weight = weights(wanted, pooled)
        total = math.fsum(weight.values())  # exactly rounded: the same in any order the set of terms comes in
        share = math.fsum(w for t, w in weight.items() if t in have) / total
        mean = total / len(weight)
        distinctive = {t for t, w in weight.items() if w >= mean}
        everywhere = set().union(*pooled) | have
        silent = {t for t in distinctive if t not in everywhere}
        if silent:  # "colour" asked of documents that write "color" is no silence
            written = words(" ".join([*pool, *evidence]))
            silent -= {t for t in silent if respelt(question, t, written)}
        # one incidental word the documents never use ("a small piece of code") leaves the question
        # answered; a gap is a part whose weight lies mostly in what they never mention ("noise level")
        answered = bool(evidence) and math.fsum(weight[t] for t in silent) / total < SILENT_SHARE
        missing = phrases(question, silent) if not answered else []
        return Verdict(answered, round(share, 4), missing, not answered and not distinctive & have)


def settle(
    verdict: Verdict,
    *,
    sides: bool,
    found_by_meaning: bool,
    meaning: bool | None,
    unmentioned: bool,
    read_by_model: bool,
) -> Verdict:
    """The part's verdict from every judge: ``verdict`` (its words in the cited passages), whether a cited
    passage was found by meaning (``found_by_meaning``), the meaning judge (``meaning``: ``None`` when it
    cannot tell), whether it names something no passage writes (``unmentioned``), and whether a chat model
    read the passages and wrote supported findings for it (``read_by_model``). A comparison's sides
    (``sides``) are judged by what the evidence names of each."""
    if not verdict.answered and not sides and found_by_meaning:
        # a finding quoted from a passage found by meaning answers the part in the documents' own words:
        # the word judge counts the question's words, so it would call the part a gap
        verdict = Verdict(True, verdict.share)
    if read_by_model and not unmentioned and not sides:
        # a chat model was asked what in the passages answers this part (or NO EVIDENCE), and each of its
        # claims was checked against them: its reading, not the small embedder's standing, decides
        return Verdict(True, verdict.share)
    if meaning is False or unmentioned:
        # it shares words, not meaning ("heat pumps" under "noise level"); or it asks about a name no passage
        # writes ("Is Bun faster?"), which nothing standing near it can answer
        return Verdict(False, verdict.share, verdict.missing, off_topic=True)
    if meaning and not verdict.answered and not sides:
        # a word no passage uses ("under the hood") is no gap when a cited passage stands out by meaning for
        # the part and the question: the documents say it in their own words
        return Verdict(True, verdict.share)
    return verdict


def figure_checked(verdict: Verdict, *, figured: bool, sides: bool) -> Verdict:
    """The settled verdict of a part that asks for a figure ("how many", "until when": ``reading.figures``): an
    answer whose findings give none (``figured`` false) is no answer, whatever the other judges said; a
    comparison's sides are judged by what the evidence names of each."""
    if verdict.answered and not figured and not sides:
        # "how many firings does an element last?" is not answered by passages on elements that give no number
        return Verdict(False, verdict.share, unfigured=True)
    return verdict
