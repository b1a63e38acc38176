"""The research corpus: documents chunked into passages, in SQLite with an FTS5 index.

``bm25()`` ranks matches inside SQLite, so search stays fast and the corpus persists with no
server. Adding is per file and transactional: an unchanged file (same content hash, same
extractor version) is skipped, a changed one has its passages replaced in one transaction, and
a file that fails to read leaves the corpus exactly as it was. A passage is stored once however
many documents hold it (``passage_refs`` says which do); it goes when the last of them goes.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from deepr_mcp.errors import InvalidInput, NotFound
from deepr_mcp.replication import outbox
from deepr_mcp.research.corpus import changes as corpus_changes
from deepr_mcp.research.corpus import failures
from deepr_mcp.research.corpus.batch import Batch, PendingDocument, store
from deepr_mcp.research.corpus.changes import CorpusChange
from deepr_mcp.research.corpus.fts import match_expression, phrase_expression
from deepr_mcp.research.corpus.ingest import (
    ESCAPED,
    EXTRACTOR_VERSION,
    AddReport,
    AddScope,
    Chunk,
    FileResult,
    NotContent,
    Progress,
    chunk,
    markdown_sections,
    plan_add,
    sections_of,
)
from deepr_mcp.research.corpus.ingest.pdf.apart import MEMORY_BYTES as PDF_MEMORY_BYTES
from deepr_mcp.research.corpus.ingest.regular import DEFAULT_MAX_BYTES, read_regular_file
from deepr_mcp.research.corpus.rows import detach, replace_chunks, upsert_document
from deepr_mcp.research.corpus.schema import open_schema
from deepr_mcp.research.corpus.vector_access import PASSAGE_COLUMNS, CorpusVectors, passage_row
from deepr_mcp.research.corpus.vectors import VectorIndex
from deepr_mcp.research.passage import Passage

__all__ = ["AddReport", "Corpus", "Document", "FileResult", "match_expression"]
_COUNT_MATCHES = "SELECT count(*) FROM passages_fts WHERE passages_fts MATCH ?"

log = logging.getLogger(__name__)

LOCATION_WEIGHT = 1.5
"""A heading ("Why it failed") says what a passage is about more densely than its body does."""


@dataclass(frozen=True, slots=True)
class Document:
    path: str
    bytes: int
    passages: int
    added_at: str
    name: str = ""
    """The path relative to the folder it was added from (what sources are shown as)."""


class Corpus(outbox.LockedOutbox, CorpusVectors):
    """Thread-safe (one connection, one lock); async callers use ``anyio.to_thread``."""

    def __init__(
        self, path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, pdf_memory_bytes: int = PDF_MEMORY_BYTES
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.max_bytes = max_bytes
        self.pdf_memory_bytes = pdf_memory_bytes
        self._lock = threading.Lock()
        self._df_cache: dict[str, int] = {}
        """Document frequencies by FTS expression; emptied whenever passages change."""
        self._generation = 0
        """Counts this connection's passage changes: the vector index reloads when it moves."""
        self._index = VectorIndex()
        self._origin: str | None = None
        """This replica's id once ``share`` is called: from then on every change is also logged."""
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        # 32 MB of page cache (default 2 MB): a batch's transaction then fits without spilling dirty pages
        # into the WAL mid-transaction, where they were written again at each spill (bench.ingest_disk).
        self._db.execute("PRAGMA cache_size=-32768")
        try:
            open_schema(self._db, path)
            rank = f"bm25({LOCATION_WEIGHT}, 1.0)"
            # Written only when it differs: an FTS5 configuration write fails other connections' searches
            # ("SQL logic error"), so a second process opening the corpus must not write it again.
            row = self._db.execute("SELECT v FROM passages_fts_config WHERE k = 'rank'").fetchone()
            if row is None or row[0] != rank:
                self._db.execute("INSERT INTO passages_fts(passages_fts, rank) VALUES ('rank', ?)", (rank,))
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- adding ----------------------------------------------------------------------------

    def add_path(
        self,
        path: Path | str,
        *,
        exclude: Sequence[str] = (),
        progress: Progress | None = None,
        scope: AddScope | None = None,
    ) -> AddReport:
        """Add a file or every supported file under a folder; per-file outcomes in the report.

        ``exclude`` holds globs matched against paths relative to the folder (see ``ingest.walk``);
        ``scope`` confines what may be read and how much (see ``ingest.scope``; none for the CLI).
        A folder with nothing left to add is an error that says why, not an empty success.
        """
        started = time.monotonic()
        plan = plan_add(path, exclude, scope)
        target, items = plan.target, plan.items
        report = AddReport(excluded=plan.excluded, excluded_why=plan.excluded_why, left=plan.left, limit=plan.limit)
        report.files += [FileResult(str(f), "skipped", reason=ESCAPED, name=n) for f, n in plan.escaped]
        if progress is not None:
            progress.start(str(target), len(items), report.excluded, report.excluded_why)
        passages = 0
        batch = Batch()
        try:
            for done, (file, name) in enumerate(items, start=1):
                if progress is not None:
                    with contextlib.suppress(OSError):  # an unreadable file is reported by the add itself
                        progress.file_started(name or str(file), file.stat().st_size)
                result = self._add_file_safely(file, name, batch)
                report.files.append(result)
                passages += result.passages
                if batch.full():
                    store(batch.take(), self._replace_all, report)
                if progress is not None:
                    progress.file_done(result, done, len(items), passages)
        finally:  # what was read is kept, also when a later file raised
            store(batch.take(), self._replace_all, report)
        report.seconds = time.monotonic() - started
        if progress is not None:  # it has shown each failure already: the caller reads the report
            progress.finish(report)
        elif not target.is_dir() and report.files[-1].status == "failed":
            raise InvalidInput(report.files[-1].reason or f"{target}: could not be added")
        return report

    def _add_file_safely(self, file: Path, name: str, batch: Batch) -> FileResult:
        """One file's outcome, a failure remembered with the bytes it failed on (see ``failures``)."""
        result = self._try_add_file(file, name, batch)
        with self._lock:
            if result.status != "failed":
                failures.clear(self._db, str(file.resolve()))
                return result
            again = failures.record(self._db, str(file.resolve()), file, result.reason or "", self.max_bytes)
        return replace(result, again=again)

    def _try_add_file(self, file: Path, name: str, batch: Batch) -> FileResult:
        """One file's outcome; a bad file is a result, never an exception that stops the others."""
        try:
            return self._add_file(file, name, batch)
        except InvalidInput as exc:
            return FileResult(str(file), "failed", reason=exc.message, name=name)
        except NotContent as exc:
            self._forget(str(file.resolve()))  # was content under an older extractor: its passages go
            return FileResult(str(file), "skipped", reason=exc.reason, name=name)
        except OSError as exc:
            return FileResult(str(file), "failed", reason=f"{file}: cannot read ({exc.strerror or exc})", name=name)
        except sqlite3.Error:
            raise
        except (Exception, RecursionError) as exc:  # an extractor bug on one odd file must not stop a folder
            log.debug("extracting %s failed", file, exc_info=True)
            reason = f"{file}: could not be indexed ({type(exc).__name__}: {exc})"[:500]
            return FileResult(str(file), "failed", reason=reason, name=name)

    def _add_file(self, file: Path, name: str, batch: Batch) -> FileResult:
        key = str(file.resolve())
        raw = read_regular_file(file, self.max_bytes)
        size = len(raw)
        digest = hashlib.sha256(raw).hexdigest()
        with self._lock:
            row = self._db.execute("SELECT sha256, extractor, name FROM documents WHERE path = ?", (key,)).fetchone()
        if row is not None and row[0] == digest and row[1] == EXTRACTOR_VERSION:
            if row[2] != name:
                with self._lock:
                    self._db.execute("UPDATE documents SET name = ? WHERE path = ?", (name, key))
            return FileResult(key, "unchanged", name=name)
        chunks = chunk(sections_of(file, raw, max_bytes=self.max_bytes, pdf_memory_bytes=self.pdf_memory_bytes))
        if not chunks:
            raise InvalidInput(f"{file}: no text found to index")
        batch.add(PendingDocument(key, name, digest, size, chunks))
        return FileResult(key, "replaced" if row is not None else "added", passages=len(chunks), name=name)

    def add_markdown(self, source: str, text: str) -> FileResult:
        """Index text that is not a local file (a fetched web page) under ``source``, e.g. its URL."""
        chunks = chunk(markdown_sections(text))
        if not chunks:
            raise InvalidInput(f"{source}: no text found to index")
        data = text.encode("utf-8")
        with self._lock:
            existed = self._db.execute("SELECT 1 FROM documents WHERE path = ?", (source,)).fetchone() is not None
        self._replace(source, source, hashlib.sha256(data).hexdigest(), len(data), chunks)
        return FileResult(source, "replaced" if existed else "added", passages=len(chunks), name=source)

    def _replace(self, key: str, name: str, digest: str, size: int, chunks: list[Chunk]) -> None:
        """A document's passages, swapped in one transaction: the old set or the new, never a mix."""
        self._replace_all([PendingDocument(key, name, digest, size, chunks)])

    def _replace_all(self, documents: list[PendingDocument]) -> None:
        """Several documents swapped in one transaction (``batch``: one commit per batch, not per file)."""
        if not documents:
            return
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for doc in documents:
                    upsert_document(
                        self._db, doc.key, doc.name, doc.digest, doc.size, len(doc.chunks), EXTRACTOR_VERSION
                    )
                    replace_chunks(self._db, doc.key, doc.chunks)
                    change = CorpusChange(
                        "replace", doc.key, "", doc.name, doc.digest, doc.size, EXTRACTOR_VERSION, doc.chunks
                    )
                    self._log(change)
                self._db.execute("COMMIT")
                self._df_cache.clear()
                self._generation += 1
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def _forget(self, key: str) -> None:
        with self._lock:
            known = self._db.execute("SELECT 1 FROM documents WHERE path = ?", (key,)).fetchone() is not None
        if known:
            self._drop(key)

    def _drop(self, key: str) -> int:
        """A document and its hold on passages, gone in one transaction; returns the passages that left."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                removed = detach(self._db, key)
                self._db.execute("DELETE FROM documents WHERE path = ?", (key,))
                self._log(CorpusChange("forget", key, ""))
                self._db.execute("COMMIT")
                self._df_cache.clear()
                self._generation += 1
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return removed

    def add_texts(self, source: str, texts: Sequence[str]) -> int:
        """Bulk-insert ready-made passages (benchmarks, generated corpora) under one source name."""
        chunks = [Chunk(f"{source}#{i}", t, "", 0, 0) for i, t in enumerate(texts)]
        self._replace(source, source, "", sum(len(t) for t in texts), chunks)
        return len(texts)

    # -- sharing with other replicas (see corpus_changes and corpus_sync) --------------------

    def share(self) -> str:
        """From now on log every change for the other replicas; returns this replica's origin id."""
        with self._lock:
            self._origin = outbox.origin(self._db)
        return self._origin

    def _log(self, change: CorpusChange) -> None:
        if self._origin is not None:
            outbox.record(self._db, replace(change, origin=self._origin).to_json())

    def apply_entry(self, entry_id: str, change: str) -> bool:
        """Another replica's change and the cursor past it, in one transaction (see ``corpus_changes.apply``);
        a malformed entry is skipped with a warning (the cursor moves), never retried forever."""
        try:
            parsed = CorpusChange.from_json(change)
        except InvalidInput as exc:
            log.warning("corpus log entry %s skipped: %s", entry_id, exc.message)
            parsed = CorpusChange("forget", "", "")
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                changed = corpus_changes.apply(self._db, entry_id, parsed, self._origin or "")
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            if changed:
                self._df_cache.clear()
                self._generation += 1
        return changed

    # -- reading ---------------------------------------------------------------------------

    def search(self, query: str, limit: int = 10, *, headings_only: bool = False) -> list[Passage]:
        """Passages by bm25 relevance (higher score is better); empty when the query has no words.

        ``headings_only`` matches the words against the heading path alone (page title and
        section names): the passages of the pages and sections that are about the query.
        """
        if not 1 <= limit <= 200:
            raise InvalidInput(f"limit must be 1-200, got {limit}")
        expression = match_expression(query, headings_only=headings_only)
        if expression is None:
            return []
        with self._lock:
            # Rank inside FTS5 (its "rank" column is bm25 with our column weights) and join only the
            # top hits: joining every match before sorting was most of the cost on common words.
            rows = self._db.execute(
                f"SELECT {PASSAGE_COLUMNS}, top.rank FROM "
                "(SELECT rowid, rank FROM passages_fts WHERE passages_fts MATCH ? ORDER BY rank LIMIT ?) AS top "
                "JOIN passages p ON p.rowid = top.rowid LEFT JOIN documents d ON d.path = p.path ORDER BY top.rank",
                (expression, limit),
            ).fetchall()
        return [passage_row(r, score=round(-r[5], 6)) for r in rows]

    search_passages = search

    def document_frequency(self, word: str) -> int:
        """How many passages hold ``word`` (as FTS5 matches it): corpus-wide rarity for re-ranking."""
        return self._matching(match_expression(word))

    def phrase_frequency(self, words: list[str]) -> int:
        """How many passages hold ``words`` next to each other, in order ("recycle bin")."""
        return self._matching(phrase_expression(words))

    def _matching(self, expression: str | None) -> int:
        if expression is None:
            return 0
        with self._lock:
            cached = self._df_cache.get(expression)
            if cached is None:
                (cached,) = self._db.execute(_COUNT_MATCHES, (expression,)).fetchone()
                if len(self._df_cache) > 50_000:
                    self._df_cache.clear()
                self._df_cache[expression] = cached
        return cached

    def passage_count(self) -> int:
        return self.stats()["passages"]

    def passage(self, passage_id: str) -> Passage:
        with self._lock:
            row = self._db.execute(
                f"SELECT {PASSAGE_COLUMNS} FROM passages p LEFT JOIN documents d ON d.path = p.path WHERE p.id = ?",
                (passage_id,),
            ).fetchone()
        if row is None:
            raise NotFound(f"no passage {passage_id!r} in the corpus")
        return passage_row(row)

    def documents(self) -> list[Document]:
        with self._lock:
            rows = self._db.execute(
                "SELECT path, bytes, passages, added_at, name FROM documents ORDER BY path"
            ).fetchall()
        return [Document(*r) for r in rows]

    def remove(self, path: Path | str) -> int:
        """Remove a document by its path (as added or absolute) or its unique name; returns the
        number of passages that left the corpus (those another document also holds stay)."""
        return self._drop(self._document_key(path))

    def _document_key(self, path: Path | str) -> str:
        given = str(path)
        candidates = [given, str(Path(given).expanduser().resolve())] if given else []
        with self._lock:
            for key in candidates:
                if self._db.execute("SELECT 1 FROM documents WHERE path = ?", (key,)).fetchone():
                    return key
            named = [r[0] for r in self._db.execute("SELECT path FROM documents WHERE name = ?", (given,))]
        if len(named) == 1:
            return named[0]
        if len(named) > 1:
            raise InvalidInput(f"{given}: {len(named)} documents have this name; give the full path: {named[:3]}")
        raise NotFound(f"{path}: not in the corpus; corpus_list shows what is")

    def stats(self) -> dict[str, int]:
        with self._lock:
            docs, passages = self._db.execute(
                "SELECT (SELECT COUNT(*) FROM documents), (SELECT COUNT(*) FROM passages)"
            ).fetchone()
        return {"documents": docs, "passages": passages}

    def iter_passages(self) -> Iterator[Passage]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {PASSAGE_COLUMNS} FROM passages p LEFT JOIN documents d ON d.path = p.path ORDER BY p.rowid"
            ).fetchall()
        for r in rows:
            yield passage_row(r)
