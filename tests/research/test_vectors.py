"""Passage vectors kept in the corpus file: stored once, read back by any process, never stale.

The store itself is tested with plain arrays (no model); the re-ranker's use of it with the
real packaged MiniLM where the ``embed`` extra is installed (always in CI).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.corpus.vectors import VectorStore, embed_corpus, passage_text
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.retrieval import rerank as rr
from deepr_mcp.research.retrieval.lexical import Retriever

needs_model = pytest.mark.skipif(
    bool(rr.missing_extra()) and not os.environ.get("CI"),
    reason="embed extra not installed (pip install 'deepr-mcp[embed]'); in CI these tests always run",
)


def unit(seed: int) -> np.ndarray:
    row = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    return row / np.linalg.norm(row)


def test_vectors_round_trip_per_model_and_missing_keys_are_absent(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "corpus.db", "minilm")
    other = VectorStore(tmp_path / "corpus.db", "another-model")
    try:
        assert store.put([(b"k1", unit(1)), (b"k2", unit(2))]) == 2
        got = store.get([b"k1", b"k2", b"k3", b"k1"])
        assert set(got) == {b"k1", b"k2"}
        assert got[b"k1"].dtype == np.float32
        assert float(got[b"k1"] @ unit(1)) == pytest.approx(1.0, abs=1e-3)  # float16 on disk
        assert other.get([b"k1"]) == {}  # one model's vectors are never read as another's
        assert store.count() == 2 and other.count() == 0
        store.put([(b"k1", unit(3))])  # a key written again is replaced, not duplicated
        assert store.count() == 2
        assert float(store.get([b"k1"])[b"k1"] @ unit(3)) == pytest.approx(1.0, abs=1e-3)
        assert store.put([]) == 0
    finally:
        store.close()
        other.close()


def test_a_vector_of_the_wrong_size_is_ignored_not_returned(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "corpus.db", "minilm")
    try:
        store.put([(b"short", np.ones(10, dtype=np.float32))])
        assert store.get([b"short"]) == {}
    finally:
        store.close()


def test_the_store_shares_the_corpus_file_and_many_keys_are_read_in_batches(tmp_path: Path) -> None:
    db = tmp_path / "corpus.db"
    corpus = Corpus(db)
    store = VectorStore(db, "minilm")
    try:
        corpus.add_texts("notes", ["tar archives can write files outside the target directory"])
        keys = [f"key-{i}".encode() for i in range(1_200)]  # more than one IN (...) batch
        store.put((k, unit(i)) for i, k in enumerate(keys))
        assert len(store.get(keys)) == 1_200
        assert corpus.search("tar archives", 5)[0].text.startswith("tar archives")
        reopened = Corpus(db)  # opening the corpus again (it writes its rank setting) is not blocked
        assert reopened.stats()["passages"] == 1
        reopened.close()
    finally:
        store.close()
        corpus.close()


def test_concurrent_writers_and_readers_all_succeed(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "corpus.db", "minilm")
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for i in range(20):
                store.put([(f"{offset}-{i}".encode(), unit(offset + i))])
                store.get([f"{offset}-{i}".encode()])
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n * 100,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    store.close()
    assert errors == [] and VectorStore(tmp_path / "corpus.db", "minilm").count() == 80


class CountingEmbedder:
    """Stands in for the model in the bulk-fill arithmetic: one fixed vector per text, stored."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def embed(self, texts, store=None):
        self.calls.append(len(texts))
        if store is not None:
            store.put((t.encode(), unit(len(t))) for t in texts)
        return np.stack([unit(len(t)) for t in texts])


class P:
    def __init__(self, location: str, text: str) -> None:
        self.location, self.text = location, text


def test_embed_corpus_goes_in_batches_and_reports_progress(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "corpus.db", "fake")
    embedder = CountingEmbedder()
    seen: list[int] = []
    try:
        done = embed_corpus([P("a > b", f"text {i}") for i in range(5)], embedder, store, batch=2, progress=seen.append)
        assert done == 5 and embedder.calls == [2, 2, 1] and seen == [2, 4, 5]
        assert store.count() == 5
        assert passage_text("a > b", "text") == "a > b\ntext"
    finally:
        store.close()


# -- the real model ---------------------------------------------------------------------------------


@needs_model
def test_a_new_process_reads_passage_vectors_back_and_only_encodes_the_query(tmp_path: Path) -> None:
    db = tmp_path / "corpus.db"
    texts = [f"passage {i}: tar archives and the directories they write to" for i in range(12)]
    first = rr.MiniLMReranker()
    store = VectorStore(db, "minilm")
    try:
        scores = first.scores("where do tar archives write?", texts, store)
        assert first.encoded == 13 and store.count() == 12
        fresh = rr.MiniLMReranker()  # an empty in-memory cache: as a new process would start
        again = fresh.scores("where do tar archives write?", texts, store)
        assert fresh.encoded == 1  # the query only
        assert again == pytest.approx(scores, abs=1e-6)  # stored and fresh vectors score alike
    finally:
        store.close()


@needs_model
def test_the_retriever_fills_the_corpus_vector_table_when_re_ranking(tmp_path: Path) -> None:
    db = tmp_path / "corpus.db"
    corpus = Corpus(db)
    try:
        corpus.add_texts(
            "notes",
            [
                "Never extract archives from untrusted sources: files may be created outside of path.",
                "The tarfile module reads and writes tar archives, including gzip compressed ones.",
                "Logging to a file: basicConfig takes a filename and the messages go there.",
            ],
        )
        question = "How do I safely extract a tar archive?"
        retriever = Retriever(corpus, rr.make_reranker("minilm"))
        evidence = retriever.retrieve(question, analyse(question), 3)
        assert evidence.passages
        assert VectorStore(db, "minilm-False").count() >= len(evidence.passages)
    finally:
        corpus.close()
