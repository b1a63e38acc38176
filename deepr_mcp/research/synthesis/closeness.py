"""How closely a claim speaks to the question, by meaning: the embedder's cosine of its closest sentence.

A report's findings all share the question's topic, so the one that answers it (the cause of a
"why", the condition of a "can I") is not the one holding the most of its words: the definition of
the subject holds as many. The embedder was trained to put an answer near its question, and a
sentence is compared on its own so that a long claim is not near the question merely by covering
the whole topic. Used to choose what the answer opens with; no embedder, no closeness.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from deepr_mcp.embedding.base import Embedder
from deepr_mcp.embedding.context import queries_in_context
from deepr_mcp.research.synthesis.claims import units

LEAD_CANDIDATES = 4
"""Each part's first findings (best first) whose closeness is measured: the answer opens with one of
them, and embedding every sentence of every finding cost a quarter of a CPU second a report."""


def prose(sentence: str) -> str:
    """A sentence without its code spans: a signature (`asyncio.all_tasks(loop=None)`) names what the
    question names and is close to it for that alone; what the sentence says is its words."""
    words = " ".join(sentence.split("`")[::2]).strip()
    return words or sentence


def closeness(embedder: Embedder | None, question: str, claims: Sequence[str]) -> list[float | None]:
    """Per claim, the best cosine of one of its sentences to ``question`` (None without an embedder)."""
    if embedder is None or embedder.dimensions <= 0 or not claims:
        return [None] * len(claims)
    sentences = [[u.text for u in units(claim) if u.text] or [claim] for claim in claims]
    cosines = sentence_closeness(embedder)(question, [s for group in sentences for s in group])
    out: list[float | None] = []
    start = 0
    for group in sentences:
        out.append(max(cosines[start : start + len(group)]))
        start += len(group)
    return out


def lead_closeness(embedder: Embedder | None, question: str, parts: Sequence[Sequence[str]]) -> dict[str, float]:
    """Closeness of each part's first ``LEAD_CANDIDATES`` claims, by claim (empty without an embedder)."""
    leading = list(dict.fromkeys(claim for claims in parts for claim in claims[:LEAD_CANDIDATES]))
    near = closeness(embedder, question, leading)
    return {claim: value for claim, value in zip(leading, near, strict=True) if value is not None}


class SentenceCloseness:
    """Cosines of sentences to a question, each sentence embedded once per process.

    A report's parts read mostly the same passages, and one campaign after another reads the same
    corpus: a sentence's vector does not depend on the question, so it is kept (the last
    ``cached`` sentences, least recently used out) and only the question is embedded each time.
    """

    def __init__(self, embedder: Embedder, cached: int = 8192) -> None:
        self.embedder = embedder
        self.cached = cached
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, question: str, sentences: Sequence[str], context: str = "") -> list[float]:
        """Per sentence (its code spans left out, ``prose``), its cosine to ``question`` (leaning on ``context``,
        the clause it refers back to, if any: ``embedding.context``)."""
        if not sentences:
            return []
        texts = [prose(s) for s in sentences]
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        fresh = dict(zip(missing, self.embedder.embed(missing), strict=True)) if missing else {}
        query = queries_in_context(self.embedder, [question], context)[0]
        with self._lock:
            self._vectors.update(fresh)
            rows = []
            for text in texts:
                row = self._vectors.get(text)
                if row is None:  # evicted by another thread between the two locks
                    row = fresh.get(text)
                    if row is None:
                        row = self.embedder.embed([text])[0]
                else:
                    self._vectors.move_to_end(text)
                rows.append(row)
            while len(self._vectors) > self.cached:
                self._vectors.popitem(last=False)
        return [round(float(c), 4) for c in np.stack(rows) @ query]


_shared: weakref.WeakKeyDictionary[Embedder, SentenceCloseness] = weakref.WeakKeyDictionary()
_shared_lock = threading.Lock()


def sentence_closeness(embedder: Embedder) -> SentenceCloseness:
    """The process's one ``SentenceCloseness`` for ``embedder``: the findings step and the answer's opener
    measure the same sentences, so the second finds their vectors already made."""
    with _shared_lock:
        near = _shared.get(embedder)
        if near is None:
            near = _shared[embedder] = SentenceCloseness(embedder)
        return near
