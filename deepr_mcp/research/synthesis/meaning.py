"""Whether the passages cited for a part answer it by meaning, judged against the corpus's own spread.

Words mislead both ways: a passage about undoing edits at the prompt shares "undo" with "can I undo
the rename?", and one about the rename tool shares its name; neither answers. A part is answered by
meaning when one cited passage stands out, for the part read alone and for the whole question it
belongs to, as retrieval's "found by meaning" does: its cosine lies ``COVER_SPREAD`` standard
deviations above that text's mean cosine to every passage of the corpus. A statistic of the corpus,
so no threshold is tuned to one corpus's cosines.

That standing says how a passage ranks in its corpus, not how near it is: in a corpus of 26,000 passages
the best passage for any question stands four deviations out, and in a dense manual the answer may
stand barely two. For the parts of a question of several parts (where one half may be answered and the
other not) an embedder that declares ``answer_cosine`` (the cosine at which that model puts a passage
that answers a question, the same on every corpus) has a say too: a passage answers when its margin
over the model's bar and its margin over the corpus's bar, summed, are not negative, so one clearly met
makes up for the other just missed. A question of one part is judged on the standing alone: there the
choice is between an answer and admitting none, and the model's bar let more unanswerable questions
through.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, Protocol

from deepr_mcp.embedding.base import Embedder
from deepr_mcp.embedding.context import queries_in_context
from deepr_mcp.research.retrieval.lexical import MEANT_SPREAD

COVER_SPREAD = MEANT_SPREAD
"""Standard deviations above the corpus mean cosine a passage must stand, for the part and the question:
the standing at which retrieval calls a passage found by meaning."""
MIN_PASSAGES = math.ceil(math.exp(COVER_SPREAD**2 / 2))
"""Fewer embedded passages than this (91) and the judge abstains: the largest standing among n cosines is
about sqrt(2 ln n) deviations, so in a smaller corpus even the passage that answers cannot stand
``COVER_SPREAD`` out, and a spread of a handful of cosines says little."""


def answer_cosine(embedder: Embedder) -> float | None:
    """The cosine at which ``embedder`` puts a passage that answers a question, if the model declares one
    (an optional attribute beside ``name`` and ``dimensions``)."""
    bar = getattr(embedder, "answer_cosine", None)
    return float(bar) if isinstance(bar, int | float) and not isinstance(bar, bool) else None


class SpreadCorpus(Protocol):
    def embedding_status(self, model: str) -> dict[str, int]: ...

    def cosine_spread(self, model: str, vector: Any) -> tuple[float, float]: ...

    def vectors_of(self, model: str, passage_ids: Sequence[str]) -> dict[str, Any]: ...


class MeaningJudge:
    """Judges parts by the embedder the corpus was indexed with (``HybridSearch``'s corpus and model)."""

    def __init__(self, corpus: SpreadCorpus, embedder: Embedder) -> None:
        self.corpus, self.embedder = corpus, embedder

    def margins(
        self, texts: Sequence[str], passage_ids: Sequence[str], context: str = "", *, several: bool = False
    ) -> dict[str, float]:
        """Per embedded passage, its lowest margin over ``texts`` (the first read leaning on ``context``: what a
        bare part means in, ``embedding.context``), in deviations of the text's cosines: how far the passage
        stands past ``COVER_SPREAD``, or, for a part of a question of ``several`` parts and an embedder with a
        bar, past the midpoint of that and the model's ``answer_cosine`` (the two margins summed). An answer
        has a margin of 0 or more."""
        vectors = self.corpus.vectors_of(self.embedder.name, passage_ids)
        if not vectors or not texts:
            return {}
        bar = answer_cosine(self.embedder) if several else None
        out = {pid: float("inf") for pid in vectors}
        for query in queries_in_context(self.embedder, list(texts), context):
            mean, deviation = self.corpus.cosine_spread(self.embedder.name, query)
            if deviation <= 0:
                return {}
            need = mean + COVER_SPREAD * deviation
            if bar is not None:
                need = (need + bar) / 2
            for pid, vector in vectors.items():
                out[pid] = min(out[pid], (float(query @ vector) - need) / deviation)
        return out

    def answers(
        self, part: str, question: str, passage_ids: Sequence[str], context: str = "", *, several: bool = False
    ) -> bool | None:
        """Whether a passage has a margin (``margins``) for ``part`` (read leaning on ``context``) and for
        ``question``; None when the judge cannot tell (none of them embedded, or a corpus too small to stand
        anything out)."""
        if self.corpus.embedding_status(self.embedder.name).get("embedded", 0) < MIN_PASSAGES:
            return None
        margins = self.margins(list(dict.fromkeys([part, question])), passage_ids, context, several=several)
        if not margins:
            return None
        return max(margins.values()) >= 0


def by_meaning(
    search: Any, part: str, question: str, passage_ids: Sequence[str], context: str = "", *, several: bool = False
) -> bool | None:
    """Whether a passage answers ``part`` (read leaning on ``context``; one of ``several`` parts or the only one)
    by meaning, with retrieval's ``HybridSearch`` (None when research runs without an embedder, or on a corpus
    that keeps no spread of its cosines)."""
    if search is None or not hasattr(search.corpus, "cosine_spread"):
        return None
    judge = MeaningJudge(search.corpus, search.embedder)
    return judge.answers(part, question, passage_ids, context, several=several)


def spoken(text: str) -> list[str]:
    """The words of ``text`` as written, "package.json" and "user's" whole, without a sentence's closing stop."""
    return [w.rstrip(".'-") for w in re.findall(r"[\w'.-]+", text) if w.rstrip(".'-")]


def heavy_words(embedder: Embedder, part: str) -> set[str] | None:
    """The words of ``part`` (``spoken``, lower-cased) whose removal moves its embedding more than the removal of
    its average word does; None when that cannot be measured (one word, no embedder). No threshold: the part's
    own words are the yardstick."""
    words = spoken(part)
    if len(words) < 2 or embedder.dimensions <= 0:
        return None
    variants = [" ".join(words[:i] + words[i + 1 :]) for i in range(len(words))]
    whole, *without = embedder.embed([part, *variants], query=True)
    moved = [1.0 - float(vector @ whole) for vector in without]
    mean = sum(moved) / len(moved)
    return {word.lower() for word, shift in zip(words, moved, strict=True) if shift > mean}
