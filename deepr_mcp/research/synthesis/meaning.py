"""Whether the passages cited for a part answer it by meaning, judged against the corpus's own spread.

Words mislead both ways: a passage about undoing edits at the prompt shares "undo" with "can I undo
the rename?", and one about the rename tool shares its name; neither answers. A part is answered by
meaning when one cited passage stands out, for the part read alone and for the whole question it
belongs to, as retrieval's "found by meaning" does: its cosine lies ``COVER_SPREAD`` standard
deviations above that text's mean cosine to every passage of the corpus. A statistic of the corpus,
so no threshold is tuned to one corpus's cosines.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from deepr_mcp.embedding.base import Embedder
from deepr_mcp.research.retrieval.lexical import MEANT_SPREAD
from deepr_mcp.research.synthesis.claims import units
from deepr_mcp.research.synthesis.closeness import prose

COVER_SPREAD = MEANT_SPREAD
"""Standard deviations above the corpus mean cosine a passage must stand, for the part and the question:
the standing at which retrieval calls a passage found by meaning."""
MIN_PASSAGES = math.ceil(math.exp(COVER_SPREAD**2 / 2))
"""Fewer embedded passages than this (91) and the judge abstains: the largest standing among n cosines is
about sqrt(2 ln n) deviations, so in a smaller corpus even the passage that answers cannot stand
``COVER_SPREAD`` out, and a spread of a handful of cosines says little."""


class SpreadCorpus(Protocol):
    def embedding_status(self, model: str) -> dict[str, int]: ...

    def cosine_spread(self, model: str, vector: Any) -> tuple[float, float]: ...

    def vectors_of(self, model: str, passage_ids: Sequence[str]) -> dict[str, Any]: ...


class MeaningJudge:
    """Judges parts by the embedder the corpus was indexed with (``HybridSearch``'s corpus and model)."""

    def __init__(self, corpus: SpreadCorpus, embedder: Embedder) -> None:
        self.corpus, self.embedder = corpus, embedder

    def standing(self, texts: Sequence[str], passage_ids: Sequence[str]) -> dict[str, float]:
        """Per embedded passage, its lowest standing (deviations above the mean) over ``texts``."""
        vectors = self.corpus.vectors_of(self.embedder.name, passage_ids)
        if not vectors or not texts:
            return {}
        out = {pid: float("inf") for pid in vectors}
        for query in self.embedder.embed(list(texts), query=True):
            mean, deviation = self.corpus.cosine_spread(self.embedder.name, query)
            if deviation <= 0:
                return {}
            for pid, vector in vectors.items():
                out[pid] = min(out[pid], (float(query @ vector) - mean) / deviation)
        return out

    def answers(self, part: str, question: str, passage_ids: Sequence[str]) -> bool | None:
        """Whether a passage stands out for ``part`` and for ``question``; None when the judge cannot tell
        (none of them embedded, or a corpus too small to stand anything out)."""
        if self.corpus.embedding_status(self.embedder.name).get("embedded", 0) < MIN_PASSAGES:
            return None
        standing = self.standing(list(dict.fromkeys([part, question])), passage_ids)
        if not standing:
            return None
        return max(standing.values()) >= COVER_SPREAD


def by_meaning(search: Any, part: str, question: str, passage_ids: Sequence[str]) -> bool | None:
    """Whether a passage answers ``part`` by meaning, with retrieval's ``HybridSearch`` (None when
    research runs without an embedder, or on a corpus that keeps no spread of its cosines)."""
    if search is None or not hasattr(search.corpus, "cosine_spread"):
        return None
    return MeaningJudge(search.corpus, search.embedder).answers(part, question, passage_ids)


def sentence_standing(search: Any, phrasings: Sequence[str], texts: Sequence[str]) -> dict[str, float]:
    """Per sentence of the passages ``texts`` (as ``claims.units`` reads it), its best standing over
    ``phrasings`` (the part and the calling agent's wordings): deviations above that phrasing's mean
    cosine to the corpus. Empty when research runs without an embedder or the corpus is too small.

    Retrieval found a passage by the meaning of the whole; which of its sentences answers is a
    question of meaning too, and a reader's words ("blow up if the pins are stale") are rarely the
    sentence's ("will exit with an error"). Standing, not the cosine, so that it compares across
    phrasings and says when a sentence is near as retrieval's "found by meaning" does.
    """
    if search is None or not hasattr(search.corpus, "cosine_spread") or not phrasings:
        return {}
    corpus, embedder = search.corpus, search.embedder
    if corpus.embedding_status(embedder.name).get("embedded", 0) < MIN_PASSAGES:
        return {}
    sentences = list(dict.fromkeys(u.text for text in texts for u in units(text.strip()) if u.text))
    if not sentences:
        return {}
    vectors = embedder.embed([prose(s) for s in sentences])
    best = [float("-inf")] * len(sentences)
    for query in embedder.embed(list(phrasings), query=True):
        mean, deviation = corpus.cosine_spread(embedder.name, query)
        if deviation <= 0:
            return {}
        best = [max(b, (float(c) - mean) / deviation) for b, c in zip(best, vectors @ query, strict=True)]
    return {s: round(b, 4) for s, b in zip(sentences, best, strict=True)}


def nearest(standing: Mapping[str, float], count: int) -> frozenset[str]:
    """The sentences that stand out by meaning (``COVER_SPREAD``), at most the ``count`` nearest: on the
    part's topic whatever words they use, as many as the part may list."""
    near = sorted((s for s, z in standing.items() if z >= COVER_SPREAD), key=lambda s: -standing[s])
    return frozenset(near[: max(0, count)])
