"""The bundled sample corpus in a data dir, indexed once per run."""

from __future__ import annotations

from pathlib import Path

_SAMPLE_DB: dict[str, bytes] = {}
"""The bundled sample's corpus.db, indexed once per test run and copied into each data dir."""


def with_sample(data_dir: Path) -> Path:
    """Give ``data_dir`` the bundled sample corpus, asked for explicitly (the server adds nothing unasked).

    What a user does with ``deepr-mcp corpus add`` or ``corpus_add(sample=true)`` before a first campaign;
    the sample is indexed and embedded once per run and its database copied, so each test pays a file copy.
    """
    if "db" not in _SAMPLE_DB:
        import tempfile

        from deepr_mcp.embedding import shared_embedder
        from deepr_mcp.research.corpus.backfill import embed_pending
        from deepr_mcp.research.corpus.storage import Corpus
        from deepr_mcp.research.samples import SAMPLE_CORPUS

        with tempfile.TemporaryDirectory(prefix="deepr-sample-db-") as tmp:
            corpus = Corpus(Path(tmp) / "corpus.db")
            corpus.add_path(SAMPLE_CORPUS)
            embed_pending(corpus, shared_embedder("minilm"))  # as `corpus add` does: searchable by meaning too
            corpus.close()  # the last connection closing folds the WAL into the file
            _SAMPLE_DB["db"] = (Path(tmp) / "corpus.db").read_bytes()
    data_dir.mkdir(parents=True, exist_ok=True)
    if not (data_dir / "corpus.db").exists():
        (data_dir / "corpus.db").write_bytes(_SAMPLE_DB["db"])
    return data_dir
