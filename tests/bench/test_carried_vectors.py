"""A newly ingested bench corpus takes the vectors of passages the previous ingest stored with the same heading
and text, and embeds only the rest (``bench.carried_vectors``)."""

from __future__ import annotations

import os
from pathlib import Path

from bench.carried_vectors import carry, previous_cache
from deepr_mcp.research.corpus.backfill import embed_pending
from deepr_mcp.research.corpus.storage import Corpus
from tests.research.test_vectors import HashEmbedder

PAGE = "# Kiln\n\n## Loading\n\n{loading}\n\n## Cooling\n\nLet the kiln cool with the lid closed.\n"


def ingest(folder: Path, loading: str, docs: Path) -> Path:
    (docs / "kiln.md").write_text(PAGE.format(loading=loading))
    folder.mkdir(parents=True)
    corpus = Corpus(folder / "corpus.db")
    corpus.add_path(docs)
    corpus.close()
    return folder / "corpus.db"


def test_unchanged_passages_keep_their_vectors_and_the_rest_are_embedded(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    old = ingest(tmp_path / "cache" / "kiln-1.0-ingest-aaaa", "Stack the shelves on posts.", docs)
    embedder = HashEmbedder()
    corpus = Corpus(old)
    embed_pending(corpus, embedder)
    corpus.close()
    new = ingest(tmp_path / "cache" / "kiln-1.0-ingest-bbbb", "Stack the shelves on three posts.", docs)
    assert carry(old, new) == 1
    corpus = Corpus(new)
    assert corpus.embedding_status(embedder.name) == {"passages": 2, "embedded": 1, "pending": 1}
    (pending,) = corpus.pending_embeddings(embedder.name)
    assert pending.text.endswith("three posts.")
    corpus.close()


def test_the_previous_cache_is_the_newest_other_ingest_of_the_same_version(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    for name, age in [("kiln-1.0-ingest-aaaa", 300), ("kiln-1.0-ingest-bbbb", 200), ("kiln-2.0-ingest-cccc", 0)]:
        (cache / name).mkdir(parents=True)
        (cache / name / "corpus.db").write_bytes(b"")
        os.utime(cache / name / "corpus.db", (1_000_000 - age, 1_000_000 - age))
    (cache / "kiln-1.0-ingest-dddd.building-42").mkdir()  # a build in progress is never taken
    (cache / "kiln-1.0-ingest-eeee").mkdir()  # nor a folder without a database
    assert previous_cache(cache / "kiln-1.0-ingest-ffff") == cache / "kiln-1.0-ingest-bbbb"
    assert previous_cache(cache / "kiln-1.0-ingest-bbbb") == cache / "kiln-1.0-ingest-aaaa"
    assert previous_cache(cache / "kiln-3.0-ingest-aaaa") is None
