"""A corpus change as replicas exchange it, and applying one made elsewhere.

A replica with a shared store writes each add or removal to its outbox in the same transaction
as the change itself (a transactional outbox: a change is never made without its record, nor
recorded without being made). Applying another replica's change moves the cursor in the same
transaction, so each change is applied exactly once, across restarts too.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from deepr_mcp.errors import InvalidInput
from deepr_mcp.replication import outbox
from deepr_mcp.research.corpus import vectors
from deepr_mcp.research.corpus.ingest import Chunk
from deepr_mcp.research.corpus.rows import detach, replace_chunks, upsert_document

__all__ = ["CorpusChange", "apply"]

Op = Literal["replace", "forget", "vectors"]


@dataclass(frozen=True, slots=True)
class CorpusChange:
    """One document replaced (with all its passages) or forgotten, or a batch of passage vectors
    (``key`` = the model, ``vectors`` = (passage id, base64 float16)), by the replica ``origin``.

    Vectors travel so that a replica need not embed again what another one embedded; a replica
    that has not seen them yet embeds its passages itself (the same model gives the same vectors).
    """

    op: Op
    key: str
    origin: str
    name: str = ""
    digest: str = ""
    size: int = 0
    extractor: int = 0
    chunks: Sequence[Chunk] = field(default=())
    vectors: Sequence[tuple[str, str]] = field(default=())

    def to_json(self) -> str:
        chunks = [[c.id, c.text, c.location, c.start, c.end] for c in self.chunks]
        body = {"op": self.op, "key": self.key, "origin": self.origin, "name": self.name, "digest": self.digest}
        if self.op == "vectors":
            body["vectors"] = [list(v) for v in self.vectors]
        return json.dumps({**body, "size": self.size, "extractor": self.extractor, "chunks": chunks})

    @classmethod
    def from_json(cls, text: str) -> CorpusChange:
        """Parse a logged change; anything malformed is refused whole, never half-applied."""
        try:
            data = json.loads(text)
            op = data["op"]
            if op not in ("replace", "forget", "vectors") or not isinstance(data["key"], str) or not data["key"]:
                raise ValueError(f"op {op!r}, key {data.get('key')!r}")
            chunks = tuple(Chunk(str(i), str(t), str(loc), int(s), int(e)) for i, t, loc, s, e in data["chunks"])
            logged = tuple((str(pid), str(blob)) for pid, blob in data.get("vectors", []))
            return cls(
                op=op,
                key=data["key"],
                origin=str(data["origin"]),
                name=str(data["name"]),
                digest=str(data["digest"]),
                size=int(data["size"]),
                extractor=int(data["extractor"]),
                chunks=chunks,
                vectors=logged,
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"not a corpus change ({type(exc).__name__}: {exc})"[:300]) from None


def apply(db: sqlite3.Connection, entry_id: str, change: CorpusChange, mine: str) -> bool:
    """Inside the caller's transaction: apply another replica's change and move the cursor past it.

    Returns whether passages changed: this replica's own changes (already made here) and a
    document already at that content are skipped, so replaying the log is harmless.
    """
    outbox.set_cursor(db, entry_id)
    if change.origin == mine:
        return False
    row = db.execute("SELECT sha256, extractor, name FROM documents WHERE path = ?", (change.key,)).fetchone()
    if change.op == "vectors":
        return vectors.apply_logged(db, change.key, change.vectors) > 0
    if change.op == "forget":
        if row is None:
            return False
        detach(db, change.key)
        db.execute("DELETE FROM documents WHERE path = ?", (change.key,))
        return True
    if row is not None and change.digest and (row[0], row[1], row[2]) == (change.digest, change.extractor, change.name):
        return False
    upsert_document(db, change.key, change.name, change.digest, change.size, len(change.chunks), change.extractor)
    replace_chunks(db, change.key, change.chunks)
    return True
