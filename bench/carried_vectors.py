"""Passage vectors carried into a newly ingested bench corpus from the previous ingest of the same version.

A change to the ingest code builds a new cache folder (``research_quality.cache_folder``), and every passage
was embedded again (about 30 CPU-minutes for python3-doc on two cores), though most come out the same. A
passage's vector depends only on the model and on its heading and text (``vectors.passage_text``): where
both are unchanged, the stored vector is the one the model would give again. The rest are embedded as before.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

__all__ = ["carry", "previous_cache"]


def previous_cache(target: Path) -> Path | None:
    """The newest other cache folder of the same corpus and version (``<name>-<version>-ingest-<hash>``)."""
    prefix = target.name.rsplit("-ingest-", 1)[0] + "-ingest-"
    others = [
        folder
        for folder in target.parent.glob(f"{prefix}*")
        if folder != target and "." not in folder.name[len(prefix) :] and (folder / "corpus.db").is_file()
    ]
    return max(others, key=lambda folder: (folder / "corpus.db").stat().st_mtime, default=None)


def carry(old_db: Path, new_db: Path) -> int:
    """Copies into ``new_db`` the vectors ``old_db`` holds for passages of the same heading and text; returns
    how many. ``old_db`` is opened read-only."""
    new = sqlite3.connect(new_db)
    try:
        new.execute("ATTACH DATABASE ? AS old", (f"file:{old_db}?mode=ro",))
        copied = new.execute(
            "INSERT OR IGNORE INTO passage_embeddings (passage, model, vector) "
            "SELECT p.rowid, e.model, e.vector FROM passages p "
            "JOIN old.passages q ON q.location = p.location AND q.text = p.text "
            "JOIN old.passage_embeddings e ON e.passage = q.rowid"
        ).rowcount
        new.commit()
        return copied
    finally:
        new.close()
