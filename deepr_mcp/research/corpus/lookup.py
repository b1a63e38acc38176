"""The corpus's side of looking passages up: by id, and by reading order (the passages beside one).

A mixin of ``Corpus`` (its connection and lock), kept apart so the corpus module stays about storing
documents and searching them.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

from deepr_mcp.errors import NotFound
from deepr_mcp.research.corpus.vector_access import PASSAGE_COLUMNS, passage_row
from deepr_mcp.research.passage import Passage

__all__ = ["PassageLookup"]

_JOINED = f"SELECT {PASSAGE_COLUMNS} FROM passages p LEFT JOIN documents d ON d.path = p.path"
_BESIDE = {
    "before": f"{_JOINED} WHERE p.path = ? AND p.start < ? ORDER BY p.start DESC LIMIT 1",
    "after": f"{_JOINED} WHERE p.path = ? AND p.start > ? ORDER BY p.start ASC LIMIT 1",
}


class PassageLookup:
    _db: sqlite3.Connection
    _lock: threading.Lock

    def passage(self, passage_id: str) -> Passage:
        with self._lock:
            row = self._db.execute(f"{_JOINED} WHERE p.id = ?", (passage_id,)).fetchone()
        if row is None:
            raise NotFound(f"no passage {passage_id!r} in the corpus")
        return passage_row(row)

    def neighbours(self, passage_ids: Sequence[str]) -> list[Passage]:
        """The passage just before and just after each of ``passage_ids`` in its document, in that order, each
        once (an id the corpus does not hold has none).

        An answer often runs on past a passage's end (the caveat after the rule, the columns after the
        command): the passage beside a found one is where it continues.
        """
        found: dict[str, Passage] = {}
        with self._lock:
            for passage_id in passage_ids:
                where = self._db.execute("SELECT path, start FROM passages WHERE id = ?", (passage_id,)).fetchone()
                for query in () if where is None else _BESIDE.values():
                    row = self._db.execute(query, where).fetchone()
                    if row is not None and row[0] not in found:
                        found[row[0]] = passage_row(row)
        return list(found.values())
