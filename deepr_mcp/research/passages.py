"""The research corpus: documents chunked into passages, in SQLite with an FTS5 index.

``bm25()`` ranks matches inside SQLite, so search stays fast and the corpus persists with no
server. Adding is per file and transactional: an unchanged file (same content hash) is
skipped, a changed one has its passages replaced in one transaction, and a file that fails
to read leaves the corpus exactly as it was.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from deepr_mcp.errors import InvalidInput, NotFound
from deepr_mcp.research.documents import SUPPORTED, Chunk, chunk, markdown_sections, sections_of
from deepr_mcp.research.engine import Passage
from deepr_mcp.text.tokenizer import STOP_WORDS

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
MAX_QUERY_TERMS = 32
LOCATION_WEIGHT = 1.5
"""A heading ("Why it failed") says what a passage is about more densely than its body does."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    path TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    passages INTEGER NOT NULL,
    added_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS passages (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL REFERENCES documents(path),
    location TEXT NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passages_path ON passages(path);
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(
    location, text, content='passages', content_rowid='rowid', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS passages_ai AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts(rowid, location, text) VALUES (new.rowid, new.location, new.text);
END;
CREATE TRIGGER IF NOT EXISTS passages_ad AFTER DELETE ON passages BEGIN
    INSERT INTO passages_fts(passages_fts, rowid, location, text) VALUES ('delete', old.rowid, old.location, old.text);
END;
"""


@dataclass(frozen=True, slots=True)
class FileResult:
    path: str
    status: Literal["added", "unchanged", "replaced", "failed"]
    passages: int = 0
    reason: str | None = None


@dataclass(slots=True)
class AddReport:
    files: list[FileResult] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def passages(self) -> int:
        return sum(f.passages for f in self.files if f.status in ("added", "replaced"))


@dataclass(frozen=True, slots=True)
class Document:
    path: str
    bytes: int
    passages: int
    added_at: str


def match_expression(query: str) -> str | None:
    """An FTS5 MATCH string built from words only: user text can never be FTS syntax."""
    words = [w for w in re.findall(r"\w+", query.lower()) if w not in STOP_WORDS]
    unique = list(dict.fromkeys(words))[:MAX_QUERY_TERMS]
    if not unique:
        return None
    return " OR ".join(f'"{w}"' for w in unique)


class Corpus:
    """Thread-safe (one connection, one lock); async callers use ``anyio.to_thread``."""

    def __init__(self, path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        with self._lock:
            self._db.executescript(SCHEMA)
            self._db.execute(
                "INSERT INTO passages_fts(passages_fts, rank) VALUES ('rank', ?)", (f"bm25({LOCATION_WEIGHT}, 1.0)",)
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- adding ----------------------------------------------------------------------------

    def add_path(self, path: Path | str) -> AddReport:
        """Add a file or every supported file under a folder; per-file outcomes in the report."""
        target = Path(path).expanduser()
        if not target.exists():
            raise NotFound(f"{target}: no such file or folder")
        report = AddReport()
        if target.is_dir():
            for file in sorted(p for p in target.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED):
                report.files.append(self._add_file_safely(file))
            return report
        if target.suffix.lower() not in SUPPORTED:
            raise InvalidInput(f"{target}: unsupported file type; supported: {', '.join(SUPPORTED)}")
        result = self._add_file_safely(target)
        if result.status == "failed":
            raise InvalidInput(result.reason or f"{target}: could not be added")
        report.files.append(result)
        return report

    def _add_file_safely(self, file: Path) -> FileResult:
        try:
            return self._add_file(file)
        except InvalidInput as exc:
            return FileResult(str(file), "failed", reason=exc.message)
        except OSError as exc:
            return FileResult(str(file), "failed", reason=f"{file}: cannot read ({exc.strerror})")

    def _add_file(self, file: Path) -> FileResult:
        key = str(file.resolve())
        size = file.stat().st_size
        if size > self.max_bytes:
            raise InvalidInput(f"{file}: {size:,} bytes is over the {self.max_bytes:,}-byte limit per file")
        raw = file.read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        with self._lock:
            row = self._db.execute("SELECT sha256 FROM documents WHERE path = ?", (key,)).fetchone()
        if row is not None and row[0] == digest:
            return FileResult(key, "unchanged")
        chunks = chunk(key, sections_of(file, raw))
        if not chunks:
            raise InvalidInput(f"{file}: no text found to index")
        self._replace(key, digest, size, chunks)
        return FileResult(key, "replaced" if row is not None else "added", passages=len(chunks))

    def add_markdown(self, source: str, text: str) -> FileResult:
        """Index text that is not a local file (a fetched web page) under ``source``, e.g. its URL."""
        chunks = chunk(source, markdown_sections(text))
        if not chunks:
            raise InvalidInput(f"{source}: no text found to index")
        data = text.encode("utf-8")
        with self._lock:
            existed = self._db.execute("SELECT 1 FROM documents WHERE path = ?", (source,)).fetchone() is not None
        self._replace(source, hashlib.sha256(data).hexdigest(), len(data), chunks)
        return FileResult(source, "replaced" if existed else "added", passages=len(chunks))

    def _replace(self, key: str, digest: str, size: int, chunks: list[Chunk]) -> None:
        """A document's passages, swapped in one transaction: the old set or the new, never a mix."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM passages WHERE path = ?", (key,))
                self._db.execute(
                    "INSERT OR REPLACE INTO documents (path, sha256, bytes, passages, added_at) VALUES (?, ?, ?, ?, ?)",
                    (key, digest, size, len(chunks), datetime.now(UTC).isoformat()),
                )
                self._db.executemany(
                    'INSERT OR IGNORE INTO passages (id, path, location, start, "end", text) VALUES (?, ?, ?, ?, ?, ?)',
                    [(c.id, key, c.location, c.start, c.end, c.text) for c in chunks],
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def add_texts(self, source: str, texts: Sequence[str]) -> int:
        """Bulk-insert ready-made passages (benchmarks, generated corpora) under one source name."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO documents (path, sha256, bytes, passages, added_at) VALUES (?, ?, ?, ?, ?)",
                    (source, "", sum(len(t) for t in texts), len(texts), datetime.now(UTC).isoformat()),
                )
                self._db.executemany(
                    'INSERT INTO passages (id, path, location, start, "end", text) VALUES (?, ?, ?, 0, 0, ?)',
                    [(f"{source}#{i}", source, "", t) for i, t in enumerate(texts)],
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return len(texts)

    # -- reading ---------------------------------------------------------------------------

    def search(self, query: str, limit: int = 10) -> list[Passage]:
        """Passages by bm25 relevance (higher score is better); empty when the query has no words."""
        if not 1 <= limit <= 200:
            raise InvalidInput(f"limit must be 1-200, got {limit}")
        expression = match_expression(query)
        if expression is None:
            return []
        with self._lock:
            # Rank inside FTS5 (its "rank" column is bm25 with our column weights) and join only the
            # top hits: joining every match before sorting was most of the cost on common words.
            rows = self._db.execute(
                "SELECT p.id, p.text, p.path, p.location, top.rank FROM "
                "(SELECT rowid, rank FROM passages_fts WHERE passages_fts MATCH ? ORDER BY rank LIMIT ?) AS top "
                "JOIN passages p ON p.rowid = top.rowid ORDER BY top.rank",
                (expression, limit),
            ).fetchall()
        return [Passage(id=r[0], text=r[1], source=r[2], location=r[3], score=round(-r[4], 6)) for r in rows]

    search_passages = search

    def passage(self, passage_id: str) -> Passage:
        with self._lock:
            row = self._db.execute(
                "SELECT id, text, path, location FROM passages WHERE id = ?", (passage_id,)
            ).fetchone()
        if row is None:
            raise NotFound(f"no passage {passage_id!r} in the corpus")
        return Passage(id=row[0], text=row[1], source=row[2], location=row[3], score=0.0)

    def documents(self) -> list[Document]:
        with self._lock:
            rows = self._db.execute("SELECT path, bytes, passages, added_at FROM documents ORDER BY path").fetchall()
        return [Document(*r) for r in rows]

    def remove(self, path: Path | str) -> int:
        keys = (str(path), str(Path(path).expanduser().resolve()))  # as added: a file path or a source name
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                removed = self._db.execute("DELETE FROM passages WHERE path IN (?, ?)", keys).rowcount
                gone = self._db.execute("DELETE FROM documents WHERE path IN (?, ?)", keys).rowcount
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        if not gone:
            raise NotFound(f"{path}: not in the corpus; corpus_list shows what is")
        return removed

    def stats(self) -> dict[str, int]:
        with self._lock:
            docs, passages = self._db.execute(
                "SELECT (SELECT COUNT(*) FROM documents), (SELECT COUNT(*) FROM passages)"
            ).fetchone()
        return {"documents": docs, "passages": passages}

    def iter_passages(self) -> Iterator[Passage]:
        with self._lock:
            rows = self._db.execute("SELECT id, text, path, location FROM passages ORDER BY rowid").fetchall()
        for r in rows:
            yield Passage(id=r[0], text=r[1], source=r[2], location=r[3], score=0.0)
