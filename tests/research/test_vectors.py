"""Passage vectors in the corpus file: written after the passages, resumable, gone with their documents.

Arithmetic and bookkeeping use a small deterministic embedder (no model); the real packaged model
is tested in test_embedding.py.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from deepr_mcp.research.corpus.backfill import embed_batch, embed_pending
from deepr_mcp.research.corpus.storage import Corpus
from tests.research.test_corpus_changes import ship


class HashEmbedder:
    """One fixed unit vector per text (from its hash): deterministic, instant, counts what it encodes."""

    name = "hash-embedder@1"
    dimensions = 16

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        self.encoded += list(texts)
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:16], dtype=np.uint8) for t in texts]
        out = np.stack(rows).astype(np.float32) - 127.5 if rows else np.zeros((0, 16), np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


@pytest.fixture
def corpus(tmp_path: Path):
    c = Corpus(tmp_path / "corpus.db")
    yield c
    c.close()


def docs(folder: Path, count: int) -> Path:
    for i in range(count):
        write(folder, f"doc{i}.md", f"# Topic {i}\n\n## Part\n\nParagraph {i} about subject number {i}.\n")
    return folder


def test_pending_passages_are_embedded_in_batches_with_progress(corpus: Corpus, tmp_path: Path) -> None:
    corpus.add_path(docs(tmp_path / "docs", 5))
    embedder = HashEmbedder()
    assert corpus.embedding_status(embedder.name) == {"passages": 5, "embedded": 0, "pending": 5}
    seen: list[tuple[int, int]] = []
    assert embed_pending(corpus, embedder, batch=2, progress=lambda d, t, s: seen.append((d, t))) == 5
    assert seen == [(2, 5), (4, 5), (5, 5)]
    assert corpus.embedding_status(embedder.name) == {"passages": 5, "embedded": 5, "pending": 0}
    assert embed_pending(corpus, embedder) == 0  # nothing left: nothing encoded again
    assert len(embedder.encoded) == 5
    # the embedded text is the heading path, then the passage
    assert any(t.startswith("Topic 0 > Part\n") for t in embedder.encoded)


def test_an_interrupted_run_resumes_where_it_stopped_in_a_new_process(tmp_path: Path) -> None:
    db = tmp_path / "corpus.db"
    first = Corpus(db)
    first.add_path(docs(tmp_path / "docs", 6))
    embedder = HashEmbedder()
    assert embed_batch(first, embedder, batch=4) == 4  # then the process "stops"
    first.close()
    again, fresh = Corpus(db), HashEmbedder()
    try:
        assert again.embedding_status(fresh.name)["pending"] == 2
        assert embed_pending(again, fresh) == 2 and len(fresh.encoded) == 2  # only what was left
    finally:
        again.close()


def test_nearest_finds_a_passage_by_its_vector_and_sees_new_vectors_at_once(corpus: Corpus, tmp_path: Path) -> None:
    corpus.add_path(docs(tmp_path / "docs", 3))
    embedder = HashEmbedder()
    embed_batch(corpus, embedder, batch=2)
    target = corpus.pending_embeddings(embedder.name)[0]  # the one not embedded yet
    assert target.passage_id not in {p.id for p in corpus.nearest(embedder.name, embedder.embed(["x"])[0], 10)}
    embed_pending(corpus, embedder)
    hits = corpus.nearest(embedder.name, embedder.embed([target.text])[0], 3)
    assert hits[0].id == target.passage_id and hits[0].score == pytest.approx(1.0, abs=1e-3)  # float16 on disk
    assert len(hits) == 3 and hits[0].score >= hits[1].score >= hits[2].score


def test_vectors_go_with_their_documents_and_a_changed_file_is_embedded_again(corpus: Corpus, tmp_path: Path) -> None:
    folder = docs(tmp_path / "docs", 3)
    corpus.add_path(folder)
    embedder = HashEmbedder()
    embed_pending(corpus, embedder)
    gone = corpus.documents()[0].path
    corpus.remove(gone)
    assert corpus.embedding_status(embedder.name) == {"passages": 2, "embedded": 2, "pending": 0}
    left = {p.source for p in corpus.nearest(embedder.name, embedder.embed(["q"])[0], 10)}
    assert len(left) == 2 and Path(gone).name not in left  # the index forgot it too

    Path(gone).unlink()
    write(folder, "doc1.md", "# Topic 1\n\n## Part\n\nNew words entirely.\n")
    corpus.add_path(folder)
    assert corpus.embedding_status(embedder.name)["pending"] == 1  # the new passage, not the others
    (pending,) = corpus.pending_embeddings(embedder.name)
    assert pending.text.endswith("New words entirely.")
    assert corpus.embedding_status(embedder.name)["embedded"] == 1  # the old text's vector went with it


def test_a_model_change_leaves_old_vectors_unused_until_embedded_again(corpus: Corpus, tmp_path: Path) -> None:
    corpus.add_path(docs(tmp_path / "docs", 2))
    old, new = HashEmbedder(), HashEmbedder()
    new.name = "hash-embedder@2"
    embed_pending(corpus, old)
    assert corpus.embedding_status(new.name)["pending"] == 2
    assert corpus.nearest(new.name, new.embed(["q"])[0], 5) == []  # never another model's vectors
    assert embed_pending(corpus, new) == 2
    assert corpus.embedding_status(new.name)["embedded"] == 2
    assert corpus.forget_embeddings() == 2 and corpus.embedding_status(new.name)["embedded"] == 0


def test_a_vector_for_a_passage_removed_meanwhile_is_not_stored(corpus: Corpus, tmp_path: Path) -> None:
    corpus.add_path(docs(tmp_path / "docs", 2))
    embedder = HashEmbedder()
    items = corpus.pending_embeddings(embedder.name)
    corpus.remove(corpus.documents()[0].path)  # while the batch was being encoded
    assert corpus.store_embeddings(embedder.name, items, embedder.embed([p.text for p in items])) == 1


def test_another_process_adding_vectors_is_seen_by_an_open_index(tmp_path: Path) -> None:
    db = tmp_path / "corpus.db"
    server, cli = Corpus(db), Corpus(db)
    try:
        server.add_path(docs(tmp_path / "docs", 2))
        embedder = HashEmbedder()
        assert server.nearest(embedder.name, embedder.embed(["q"])[0], 5) == []  # loads an empty index
        embed_pending(cli, embedder)  # another connection (the CLI) embeds
        assert len(server.nearest(embedder.name, embedder.embed(["q"])[0], 5)) == 2
    finally:
        server.close(), cli.close()


def test_vectors_travel_to_other_replicas_with_the_passages(tmp_path: Path) -> None:
    one, two = Corpus(tmp_path / "one.db"), Corpus(tmp_path / "two.db")
    try:
        one.share(), two.share()
        one.add_path(docs(tmp_path / "docs", 3))
        embedder = HashEmbedder()
        embed_pending(one, embedder)
        assert ship(one, two) == [True, True, True, True]  # three documents, then one batch of vectors
        assert two.embedding_status(embedder.name) == {"passages": 3, "embedded": 3, "pending": 0}
        probe = one.pending_embeddings  # same vectors: the nearest passage is the same on both
        assert probe(embedder.name) == []
        query = embedder.embed(["Topic 2 > Part\nParagraph 2 about subject number 2."])[0]
        assert one.nearest(embedder.name, query, 1)[0].id == two.nearest(embedder.name, query, 1)[0].id
    finally:
        one.close(), two.close()


PAGE = (
    "# Kiln\n\n## Loading\n\n{loading}\n\n## Cooling\n\nLet the kiln cool with the lid closed.\n\n"
    "## Firing\n\nFire to cone six.\n"
)


def test_an_edited_page_is_embedded_again_only_where_it_changed(corpus: Corpus, tmp_path: Path) -> None:
    page = write(tmp_path / "docs", "kiln.md", PAGE.format(loading="Stack the shelves on posts."))
    corpus.add_path(page)
    embedder = HashEmbedder()
    embed_pending(corpus, embedder)
    before = {p.text: p.id for p in corpus.search_passages("kiln", 10)}
    assert corpus.embedding_status(embedder.name) == {"passages": 3, "embedded": 3, "pending": 0}

    write(tmp_path / "docs", "kiln.md", PAGE.format(loading="Stack the shelves on three posts of equal height."))
    corpus.add_path(page)
    assert corpus.embedding_status(embedder.name) == {"passages": 3, "embedded": 2, "pending": 1}
    (pending,) = corpus.pending_embeddings(embedder.name)
    assert pending.text.endswith("three posts of equal height.")
    embedder.encoded.clear()
    embed_pending(corpus, embedder)
    assert len(embedder.encoded) == 1  # one passage embedded, not the page
    found = [p.text for p in corpus.search_passages("shelves posts", 10)]
    assert found == ["Stack the shelves on three posts of equal height."]  # the old text is gone from search too
    kept = {p.text: p.id for p in corpus.search_passages("kiln", 10)}
    assert kept["Let the kiln cool with the lid closed."] == before["Let the kiln cool with the lid closed."]


def test_a_renamed_heading_is_embedded_again_with_its_new_name(corpus: Corpus, tmp_path: Path) -> None:
    page = write(tmp_path / "docs", "kiln.md", PAGE.format(loading="Stack the shelves on posts."))
    corpus.add_path(page)
    embedder = HashEmbedder()
    embed_pending(corpus, embedder)
    renamed = PAGE.format(loading="Stack the shelves on posts.").replace("Cooling", "Cooling down")
    write(tmp_path / "docs", "kiln.md", renamed)
    corpus.add_path(page)
    (pending,) = corpus.pending_embeddings(embedder.name)  # the heading is part of what is embedded
    assert pending.text.startswith("Kiln > Cooling down") and pending.text.endswith("with the lid closed.")
    cooled = next(p for p in corpus.search_passages("lid closed", 5) if "lid" in p.text)
    assert cooled.location.endswith("Cooling down")


def test_a_passage_two_documents_share_keeps_its_vector_when_one_goes(corpus: Corpus, tmp_path: Path) -> None:
    same = "Let the kiln cool with the lid closed before you open it."
    write(tmp_path / "docs", "a.md", f"# A\n\n{same}\n")
    write(tmp_path / "docs", "b.md", f"# A\n\n{same}\n")
    corpus.add_path(tmp_path / "docs")
    embedder = HashEmbedder()
    embed_pending(corpus, embedder)
    assert corpus.embedding_status(embedder.name) == {"passages": 1, "embedded": 1, "pending": 0}
    corpus.remove(str(tmp_path / "docs" / "a.md"))
    assert corpus.embedding_status(embedder.name) == {"passages": 1, "embedded": 1, "pending": 0}
