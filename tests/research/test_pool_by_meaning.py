"""The candidate pool takes as many passages by meaning as by words for each phrasing.

A question in the reader's words shares none of the documentation's: its evidence comes into the pool
only as a nearest neighbour, and with thirty neighbours against sixty word hits per phrasing the
answer at neighbour rank 45 never reached the ranking. A small embedder whose cosines are set by
the test places it there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from deepr_mcp.research.corpus.backfill import embed_pending
from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.retrieval.hybrid import HybridSearch
from deepr_mcp.research.retrieval.lexical import Retriever

QUESTION = "How can my pots stop clinging after firing?"
ANSWER = "Entry 45: a thin coat of kiln wash on every shelf keeps glaze drips from fusing ware to it."


class AngleEmbedder:
    """Entry N lies N degrees from every query: the nearer the number, the nearer in meaning."""

    name = "angle-embedder@1"
    dimensions = 2

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        angles = [
            0.0 if query else np.radians(float(m.group(1)) if (m := re.search(r"Entry (\d+)", t)) else 90.0)
            for t in texts
        ]
        return np.array([[np.cos(a), np.sin(a)] for a in angles], dtype=np.float32).reshape(len(texts), 2)


def test_the_answer_found_only_by_meaning_reaches_the_pool(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(1, 81):
        body = ANSWER if i == 45 else f"Entry {i}: " + " ".join(f"w{i}x{j}" for j in range(8)) + "."
        (docs / f"entry{i:02d}.md").write_text(f"# Entry {i}\n\n{body}\n")
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(docs)
    embedder = AngleEmbedder()
    embed_pending(corpus, embedder)
    analysis = analyse(QUESTION)
    evidence = Retriever(corpus, HybridSearch(corpus, embedder)).retrieve(QUESTION, analysis, 60)
    texts = [p.text for p in evidence.passages]
    assert not any(word in ANSWER.lower() for word in ("pots", "clinging", "stop"))  # no word shared
    assert ANSWER in texts
    assert not any(t.startswith("Entry 70:") for t in texts)  # farther than sixty neighbours: not taken


QUESTION_OF_TWO_PARTS = "How do I glaze a mug, and how long does it take before I can touch it?"
PART = "How long does it take before I can touch it?"
RESTS = "Entry 5: a freshly glazed mug rests in the shut kiln overnight, until it is below fifty degrees."


class SubjectEmbedder:
    """A phrasing that names the mug lies at 0 degrees, one that does not at 180; Entry N at N degrees."""

    name = "subject-embedder@1"
    dimensions = 2

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        def angle(text: str) -> float:
            if query:
                return 0.0 if "mug" in text else np.pi
            found = re.search(r"Entry (\d+)", text)
            return np.radians(float(found.group(1))) if found else np.pi / 2

        return np.array([[np.cos(angle(t)), np.sin(angle(t))] for t in texts], dtype=np.float32).reshape(-1, 2)


def test_a_part_is_also_searched_by_the_meaning_of_its_whole_question(tmp_path: Path) -> None:
    """The part alone ("how long does it take ...") has lost its subject; the question it belongs to has not."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(1, 81):
        body = RESTS if i == 5 else f"Entry {i}: " + " ".join(f"w{i}x{j}" for j in range(8)) + "."
        (docs / f"entry{i:02d}.md").write_text(f"# Entry {i}\n\n{body}\n")
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(docs)
    embedder = SubjectEmbedder()
    embed_pending(corpus, embedder)
    evidence = Retriever(corpus, HybridSearch(corpus, embedder)).retrieve(PART, analyse(QUESTION_OF_TWO_PARTS), 10)
    assert RESTS in [p.text for p in evidence.passages]
