"""The corpus database's tables, and the upgrade of an older corpus in place.

Schema 1 stored one passage row per file, so the same paragraph in ten files was ten rows.
Schema 2 stores a passage once (``passages``) and lists every document holding it in
``passage_refs``; ``passages.path``/``location`` are those of one holder, the one shown.
With a shared store, the replication tables hold changes not yet published to the other replicas
and how far this replica has applied theirs (``replication.outbox``, ``corpus.changes``).
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from deepr_mcp.errors import InvalidInput
from deepr_mcp.replication import outbox
from deepr_mcp.research.corpus import vectors

log = logging.getLogger("deepr_mcp.research.corpus.storage")

SCHEMA_VERSION = 2
"""1: one passage row per file (the same text stored again per file); 2: shared passages + refs."""

SCHEMA_STATEMENTS = (
    """\
CREATE TABLE IF NOT EXISTS documents (
    path TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    passages INTEGER NOT NULL,
    added_at TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    extractor INTEGER NOT NULL DEFAULT 0
)
""",
    """\
CREATE TABLE IF NOT EXISTS passages (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL REFERENCES documents(path),
    location TEXT NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    text TEXT NOT NULL
)
""",
    """\
CREATE INDEX IF NOT EXISTS passages_path ON passages(path)
""",
    """\
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(
    location, text, content='passages', content_rowid='rowid', tokenize='porter unicode61'
)
""",
    """\
CREATE TRIGGER IF NOT EXISTS passages_ai AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts(rowid, location, text) VALUES (new.rowid, new.location, new.text);
END
""",
    """\
CREATE TRIGGER IF NOT EXISTS passages_ad AFTER DELETE ON passages BEGIN
    INSERT INTO passages_fts(passages_fts, rowid, location, text) VALUES ('delete', old.rowid, old.location, old.text);
END
""",
    """\
CREATE TABLE IF NOT EXISTS passage_refs (
    passage INTEGER NOT NULL REFERENCES passages(rowid),
    path TEXT NOT NULL REFERENCES documents(path),
    location TEXT NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    PRIMARY KEY (path, passage)
) WITHOUT ROWID
""",
    """\
CREATE INDEX IF NOT EXISTS passage_refs_passage ON passage_refs(passage)
""",
    """\
CREATE TRIGGER IF NOT EXISTS passages_au AFTER UPDATE OF location, text ON passages BEGIN
    INSERT INTO passages_fts(passages_fts, rowid, location, text) VALUES ('delete', old.rowid, old.location, old.text);
    INSERT INTO passages_fts(rowid, location, text) VALUES (new.rowid, new.location, new.text);
END
""",
    # A file that failed, with the bytes it failed on: adding the same bytes again is not a new
    # failure (``corpus add`` exits 0 when nothing new failed). Local to this replica, never shared.
    """\
CREATE TABLE IF NOT EXISTS failed_files (
    path TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    reason TEXT NOT NULL
)
""",
    *outbox.SCHEMA_STATEMENTS,
    *vectors.SCHEMA_STATEMENTS,
)
SCHEMA = ";\n".join(SCHEMA_STATEMENTS) + ";\n"


def open_schema(db: sqlite3.Connection, path: Path) -> None:
    """Create the tables, or upgrade a schema-1 corpus in one transaction (with a warning saying so)."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise InvalidInput(
            f"{path}: written by a newer deepr-mcp (corpus schema {version}, this one knows "
            f"{SCHEMA_VERSION}); upgrade deepr-mcp or point --data-dir elsewhere"
        )
    old = (
        version < SCHEMA_VERSION
        and db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'passages'").fetchone()
    )
    if not old:
        db.executescript(SCHEMA + f"PRAGMA user_version = {SCHEMA_VERSION};")
        return
    try:
        merged = _migrate_from_1(db)
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    log.warning(
        "%s: corpus upgraded to schema %d (identical passages are now stored once; %d duplicates merged). "
        "Old passages keep working; add your folders again to re-extract them with the new HTML and code "
        "handling (changed extraction counts as a change).",
        path,
        SCHEMA_VERSION,
        merged,
    )


def _migrate_from_1(db: sqlite3.Connection) -> int:
    """In place, one transaction: refs for every passage, identical texts merged into one row."""
    db.execute("BEGIN IMMEDIATE")
    db.execute("ALTER TABLE documents ADD COLUMN name TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE documents ADD COLUMN extractor INTEGER NOT NULL DEFAULT 0")
    for statement in SCHEMA_STATEMENTS:  # one by one: executescript would commit the transaction
        db.execute(statement)
    db.execute(
        'INSERT INTO passage_refs (passage, path, location, start, "end") '
        'SELECT rowid, path, location, start, "end" FROM passages'
    )
    db.execute(
        "CREATE TEMP TABLE merge AS SELECT p.rowid AS dup, k.keep AS keep FROM passages p JOIN "
        "(SELECT text, MIN(rowid) AS keep FROM passages GROUP BY text HAVING COUNT(*) > 1) k "
        "ON k.text = p.text WHERE p.rowid != k.keep"
    )
    db.execute(
        "UPDATE OR IGNORE passage_refs SET passage = (SELECT keep FROM temp.merge WHERE dup = passage) "
        "WHERE passage IN (SELECT dup FROM temp.merge)"
    )
    db.execute("DELETE FROM passage_refs WHERE passage IN (SELECT dup FROM temp.merge)")
    merged = db.execute("DELETE FROM passages WHERE rowid IN (SELECT dup FROM temp.merge)").rowcount
    db.execute("DROP TABLE temp.merge")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    db.execute("COMMIT")
    return merged
