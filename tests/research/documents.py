"""A corpus of one made-up document, as the engine tests build it."""

from __future__ import annotations

from pathlib import Path

from deepr_mcp.research.corpus.storage import Corpus


def corpus_of(folder: Path, name: str, text: str) -> Corpus:
    """``text`` written to ``folder/name`` and added to a new corpus in ``folder``."""
    (folder / name).write_text(text)
    made = Corpus(folder / "corpus.db")
    made.add_path(folder / name)
    return made
