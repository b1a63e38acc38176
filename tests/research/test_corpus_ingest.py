"""Adding folders to the corpus: names, dedupe, excludes, limits, bad files, progress, old corpora."""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from deepr_mcp.cli import main
from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest import BarProgress, Progress, for_stream
from deepr_mcp.research.corpus.storage import Corpus
from tests.clients import call, connect, text_of

FIXTURES = Path(__file__).parent / "fixtures"
SHARED = "untrusted input inspect member names sizes types"


@pytest.fixture
def sphinx(tmp_path: Path) -> Path:
    """A private copy of the Sphinx build, so tests may change its files."""
    return Path(shutil.copytree(FIXTURES / "sphinx", tmp_path / "html"))


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    c = Corpus(tmp_path / "data" / "corpus.db")
    yield c
    c.close()


def test_a_sphinx_build_is_added_like_a_search_engine(corpus: Corpus, sphinx: Path) -> None:
    report = corpus.add_path(sphinx)
    outcome = {f.name: f.status for f in report.files}
    assert outcome == {
        "contents.html": "skipped",
        "genindex.html": "skipped",
        "py-modindex.html": "skipped",
        "search.html": "skipped",
        "library/archiving.html": "skipped",
        "library/tarfile.html": "added",
        "library/zipfile.html": "added",
    }
    assert report.excluded == 1  # Sphinx's _sources copy of the same text
    texts = [p.text + p.location for p in corpus.iter_passages()]
    assert not [t for t in texts if "¶" in t or "Previous topic" in t or "Show Source" in t or "Index" in t]
    hit = corpus.search("extraction filters filter argument destination", 1)[0]
    assert hit.source == "library/tarfile.html"
    assert hit.path == str((sphinx / "library" / "tarfile.html").resolve())
    assert hit.location == "tarfile — Read and write tar archive files > Extraction filters"
    assert '```python3\nimport tarfile\n\nwith tarfile.open("sample.tar.gz") as tar:\n' in hit.text
    assert {d.name for d in corpus.documents()} == {"library/tarfile.html", "library/zipfile.html"}


def test_identical_passages_are_stored_once_and_outlive_one_holder(corpus: Corpus, sphinx: Path) -> None:
    report = corpus.add_path(sphinx)
    held = sum(f.passages for f in report.files)
    assert corpus.stats()["passages"] == held - 1  # the "Archive safety" paragraph is in both pages
    shared = [p for p in corpus.search(SHARED, 10) if "untrusted input" in p.text]
    assert len(shared) == 1
    first_holder = shared[0].source

    assert corpus.remove(first_holder) >= 1  # by display name; the shared passage is not among those removed
    still = [p for p in corpus.search(SHARED, 10) if "untrusted input" in p.text]
    assert [p.id for p in still] == [shared[0].id]  # same id: citations keep resolving
    assert still[0].source != first_holder and still[0].source.startswith("library/")
    assert corpus.passage(shared[0].id).text == shared[0].text

    corpus.remove(still[0].path)
    assert [p for p in corpus.search(SHARED, 10) if "untrusted input" in p.text] == []
    assert corpus.stats() == {"documents": 0, "passages": 0}


def test_changing_a_file_keeps_passages_other_files_hold(corpus: Corpus, sphinx: Path) -> None:
    corpus.add_path(sphinx)
    tarfile = sphinx / "library" / "tarfile.html"
    tarfile.write_text(tarfile.read_text().replace("Archives from the network are untrusted input", "Changed"))
    report = corpus.add_path(sphinx)
    assert {f.name: f.status for f in report.files}["library/tarfile.html"] == "replaced"
    shared = [p for p in corpus.search(SHARED, 10) if "Archives from the network are untrusted input" in p.text]
    assert [p.source for p in shared] == ["library/zipfile.html"]


def test_exclude_globs(corpus: Corpus, sphinx: Path) -> None:
    report = corpus.add_path(sphinx, exclude=["zipfile.html", "genindex*", "search.html"])
    assert {f.name for f in report.files} == {
        "contents.html",
        "py-modindex.html",
        "library/archiving.html",
        "library/tarfile.html",
    }
    assert report.excluded == 1 + 3
    report = corpus.add_path(sphinx, exclude=["library/*"])
    assert not [f for f in report.files if f.name.startswith("library/")]
    with pytest.raises(InvalidInput, match=r"all 8 supported files are excluded by '\*'; nothing was added"):
        corpus.add_path(sphinx, exclude=["*"])
    with pytest.raises(InvalidInput, match="excluded by"):
        corpus.add_path(sphinx / "library" / "tarfile.html", exclude=["*.html"])
    empty = sphinx / "empty"
    empty.mkdir()
    (empty / "picture.png").write_bytes(b"\x89PNG")
    with pytest.raises(InvalidInput, match="no supported files"):
        corpus.add_path(empty)


def test_per_file_size_limit_is_the_setting(tmp_path: Path, sphinx: Path) -> None:
    small = Corpus(tmp_path / "small.db", max_bytes=3_000)
    try:
        report = small.add_path(sphinx / "library")
        reasons = [f.reason for f in report.files if f.status == "failed"]
        assert len(reasons) == 3
        assert "over the 3,000-byte limit per file (setting corpus.max_file_bytes" in reasons[0]
        assert small.stats() == {"documents": 0, "passages": 0}
    finally:
        small.close()


def test_bad_files_fail_alone_and_leave_no_passages(corpus: Corpus, tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "good.md").write_text("# Fine\n\nThis one is a perfectly ordinary document.\n")
    (folder / "corrupt.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\ntrailer garbage")
    (folder / "deep.html").write_text("<div>" * 5000 + "hidden" + "</div>" * 5000)
    (folder / "scripts.html").write_text("<html><body><script>var a = 1;</script><style>p{}</style></body></html>")
    (folder / "binary.txt").write_bytes(b"\x00\x01\x02 binary")
    (folder / "latin1.md").write_bytes("caf\xe9 au lait".encode("latin-1"))
    (folder / "truncated.html").write_text("<html><body><main><h1>Half</h1><p>The page stops in the mid")
    report = corpus.add_path(folder)
    status = {f.name: (f.status, f.reason or "") for f in report.files}
    assert status["good.md"][0] == "added"
    assert status["truncated.html"][0] == "added"  # a cut-off page still has text worth keeping
    expected = {
        "corrupt.pdf": "not a readable PDF",
        "deep.html": "nest more than 4,000 deep",
        "scripts.html": "no text found",
        "binary.txt": "looks binary",
        "latin1.md": "not UTF-8",
    }
    for name, message in expected.items():
        assert status[name][0] == "failed" and message in status[name][1], (name, status[name])
    assert {d.name for d in corpus.documents()} == {"good.md", "truncated.html"}


def test_a_named_pipe_is_refused_without_blocking_the_add(corpus: Corpus, tmp_path: Path) -> None:
    """A FIFO called ``notes.md`` in an added folder (or added by name) used to block ``corpus add``
    forever: opening a pipe for reading waits for a writer. It is refused, and the rest is added."""
    folder = tmp_path / "pipes"
    folder.mkdir()
    (folder / "good.md").write_text("# Fine\n\nThis one is a perfectly ordinary document.\n")
    os.mkfifo(folder / "notes.md")
    outcome: dict[str, object] = {}

    def add_both() -> None:
        outcome["folder"] = corpus.add_path(folder)
        try:
            corpus.add_path(folder / "notes.md")
        except InvalidInput as refused:  # one file named alone: its failure is the answer
            outcome["file"] = refused.message

    worker = threading.Thread(target=add_both, daemon=True)
    worker.start()
    worker.join(timeout=120)  # a guard only: a regression would block here, not fail
    assert not worker.is_alive(), "corpus add blocked on a named pipe"
    status = {f.name: (f.status, f.reason or "") for f in outcome["folder"].files}  # type: ignore[attr-defined]
    assert status["good.md"][0] == "added"
    assert status["notes.md"][0] == "failed" and "not a regular file" in status["notes.md"][1]
    assert "notes.md: not a regular file (a pipe, socket or device)" in str(outcome["file"])


PATHOLOGICAL = {
    "hyphens": "-" * 100_000,
    "underscores": "_" * 100_000 + "a",
    "backticks": "`" * 50_000 + "a",
    "brackets": "[" * 50_000 + "](" * 20_000,
    "angles": "<" * 100_000,
    "entities": "&#" * 50_000,
    "parentheses": "(" * 50_000 + ")" * 50_000,
    "stops": "word " + ". " * 50_000 + "x",
    "fields": "Default: x Type: y " * 20_000,
}


@pytest.mark.parametrize("suffix", [".md", ".html", ".txt", ".adoc"])
def test_long_runs_of_markup_characters_are_read_in_bounded_time(corpus: Corpus, tmp_path: Path, suffix: str) -> None:
    """Inputs built to make a regular expression backtrack: each file is added or refused, and the add
    finishes (the thread join is a hang guard, not a timing)."""
    folder = tmp_path / "runs"
    folder.mkdir()
    for name, text in PATHOLOGICAL.items():
        (folder / f"{name}{suffix}").write_text(
            text if suffix != ".html" else f"<html><body><p>{text}</p></body></html>"
        )
    outcome: dict[str, object] = {}
    worker = threading.Thread(target=lambda: outcome.update(report=corpus.add_path(folder)), daemon=True)
    worker.start()
    worker.join(timeout=300)
    assert not worker.is_alive(), "ingest did not finish on pathological markup"
    report = outcome["report"]
    assert len(report.files) == len(PATHOLOGICAL)  # type: ignore[attr-defined]
    assert all(f.status in ("added", "failed") for f in report.files)  # type: ignore[attr-defined]


def test_a_failure_while_storing_leaves_nothing_half_added(
    corpus: Corpus, sphinx: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("disk went away")

    monkeypatch.setattr("deepr_mcp.research.corpus.storage.replace_chunks", broken)  # after the document row
    report = corpus.add_path(sphinx / "library")
    assert report.count("failed") == 2 and report.count("added") == 0  # the third is a contents page
    assert "disk went away" in (next(f for f in report.files if f.status == "failed").reason or "")
    assert corpus.stats() == {"documents": 0, "passages": 0}
    assert list(corpus.iter_passages()) == []


def test_a_folder_of_ten_thousand_files(corpus: Corpus, tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(10_000):
        (folder / f"n{i:05d}.md").write_text(f"# Note {i}\n\nSplice number {i} sits at mile {i * 3} of the cable.\n")
    out = io.StringIO()
    report = corpus.add_path(folder, progress=Progress(out))
    assert report.count("added") == 10_000 and corpus.stats()["passages"] == 10_000
    lines = out.getvalue().splitlines()
    assert lines[0] == f"adding {folder}: 10000 files" and len(lines) == 10_002
    assert lines[-1].startswith("done: 10000 files, 10,000 passages, 10000 added in ")


def test_progress_is_plain_lines_without_a_terminal_and_a_bar_with_one(corpus: Corpus, sphinx: Path) -> None:
    assert type(for_stream(io.StringIO())) is Progress
    plain = io.StringIO()
    corpus.add_path(sphinx, progress=for_stream(plain))
    text = plain.getvalue()
    assert "\r" not in text and "\x1b" not in text
    assert "added     library/tarfile.html (" in text
    assert "skipped   genindex.html (an index page (navigation, not content))" in text
    assert text.splitlines()[-1].startswith("done: 7 files, ") and "2 added, 5 skipped, 1 excluded in " in text

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    progress = for_stream(terminal)
    assert isinstance(progress, BarProgress)
    corpus.add_path(sphinx, progress=progress)
    drawn = terminal.getvalue()
    assert "\r[" in drawn and "7/7 files" in drawn and "skipped" in drawn
    assert "done: 7 files, " in drawn.splitlines()[-1]


def test_cli_corpus_add_with_exclude_and_size_setting(
    tmp_path: Path, sphinx: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DEEPR_CONFIG", "")
    monkeypatch.setenv("DEEPR_CORPUS_MAX_FILE_BYTES", "8000")
    data = ["--data-dir", str(tmp_path / "data")]
    assert main([*data, "config", "show"]) == 0
    assert json.loads(capsys.readouterr().out)["corpus"]["max_file_bytes"] == 8000
    code = main([*data, "corpus", "add", str(sphinx), "--exclude", "genindex*", "--exclude", "zipfile.html"])
    out = capsys.readouterr().out
    assert code == 1  # tarfile.html is over 8,000 bytes: reported, and the exit code says so
    assert "failed    library/tarfile.html (" in out and "corpus.max_file_bytes" in out
    assert "genindex" not in out and "zipfile" not in out
    assert out.splitlines()[-2].startswith("done: 5 files, ")
    assert out.splitlines()[-1].startswith("searchable by meaning: ")  # then embedded in the foreground
    assert main([*data, "corpus", "add", str(sphinx), "--exclude", "*"]) == 2
    assert "nothing was added" in capsys.readouterr().err


async def test_corpus_add_tool_takes_excludes(empty_data_dir: Path, sphinx: Path) -> None:
    data_dir = empty_data_dir  # the listing below shows only what this test added
    async with connect("inproc", "legacy", data_dir) as client:
        added = await call(client, "corpus_add", {"path": str(sphinx), "exclude": ["zipfile.html"]})
        assert added["added"] == 1 and added["excluded"] == 2 and added["failed"] == []
        assert {s["path"] for s in added["skipped"]} == {
            "contents.html",
            "genindex.html",
            "py-modindex.html",
            "search.html",
            "library/archiving.html",
        }
        hits = (await call(client, "corpus_search", {"query": "extraction filters destination"}))["hits"]
        assert hits[0]["source"] == "library/tarfile.html"
        listing = await call(client, "corpus_list", {})
        assert [i["name"] for i in listing["items"]] == ["library/tarfile.html"]
        everything = {"path": str(sphinx), "exclude": ["*"]}
        error = await client.call_tool("tool_call", {"name": "corpus_add", "arguments": everything})
        assert error.is_error and "nothing was added" in text_of(error)


SCHEMA_1 = """
CREATE TABLE documents (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, bytes INTEGER NOT NULL,
    passages INTEGER NOT NULL, added_at TEXT NOT NULL);
CREATE TABLE passages (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL REFERENCES documents(path), location TEXT NOT NULL, start INTEGER NOT NULL,
    "end" INTEGER NOT NULL, text TEXT NOT NULL);
CREATE INDEX passages_path ON passages(path);
CREATE VIRTUAL TABLE passages_fts USING fts5(location, text, content='passages', content_rowid='rowid',
    tokenize='porter unicode61');
CREATE TRIGGER passages_ai AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts(rowid, location, text) VALUES (new.rowid, new.location, new.text);
END;
CREATE TRIGGER passages_ad AFTER DELETE ON passages BEGIN
    INSERT INTO passages_fts(passages_fts, rowid, location, text) VALUES ('delete', old.rowid, old.location, old.text);
END;
"""


def test_a_schema_1_corpus_is_migrated_in_place(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db_path = tmp_path / "corpus.db"
    doc_a, doc_b = tmp_path / "a.md", tmp_path / "b.md"
    doc_a.write_text("# A\n\nThe same notice in two files, word for word.\n")
    doc_b.write_text("# B\n\nThe same notice in two files, word for word.\n\nOnly b has this sentence.\n")
    db = sqlite3.connect(db_path)
    db.executescript(SCHEMA_1)
    rows = [
        ("pold1", str(doc_a), "A", "The same notice in two files, word for word."),
        ("pold2", str(doc_b), "B", "The same notice in two files, word for word."),
        ("pold3", str(doc_b), "B", "Only b has this sentence."),
    ]
    for key, count in ((str(doc_a), 1), (str(doc_b), 2)):
        db.execute("INSERT INTO documents VALUES (?, 'x', 10, ?, '2024-01-01')", (key, count))
    db.executemany('INSERT INTO passages (id, path, location, start, "end", text) VALUES (?, ?, ?, 0, 0, ?)', rows)
    db.commit()
    db.close()

    with caplog.at_level(logging.WARNING):
        corpus = Corpus(db_path)
    try:
        assert "upgraded to schema 2" in caplog.text and "1 duplicates merged" in caplog.text
        assert corpus.stats() == {"documents": 2, "passages": 2}
        assert corpus.passage("pold1").text.startswith("The same notice")  # old ids still resolve
        assert corpus.passage("pold3").source == str(doc_b)
        assert [p.id for p in corpus.search("notice word")] == ["pold1"]
        assert corpus.remove(doc_a) == 0  # b still holds the notice
        assert [p.source for p in corpus.search("notice word")] == [str(doc_b)]
        # Extracted by the old code: adding it again re-extracts even though the bytes are the same.
        assert [f.status for f in corpus.add_path(doc_b).files] == ["replaced"]
        assert [f.status for f in corpus.add_path(doc_b).files] == ["unchanged"]
        assert corpus.search("notice word")[0].source == "b.md"
    finally:
        corpus.close()
    reopened = Corpus(db_path)  # opening again does not migrate again
    assert reopened.stats()["documents"] == 1
    reopened.close()


def test_a_corpus_from_a_newer_version_is_refused_clearly(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "corpus.db")
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(InvalidInput, match="written by a newer deepr-mcp"):
        Corpus(tmp_path / "corpus.db")


async def test_bad_files_over_mcp_get_reasons_and_the_server_keeps_serving(
    empty_data_dir: Path, tmp_path: Path
) -> None:
    """Corrupt PDF, a page over the size setting, undeclared non-UTF-8, binary: each fails alone, said why."""
    data_dir = empty_data_dir  # the listing below shows only what this test added
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "good.md").write_text("# Notes\n\nThe archive is checked before extraction begins.\n")
    (bad / "broken.pdf").write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
    (bad / "huge.html").write_text("<html><body><p>" + "word " * 3000 + "</p></body></html>")
    (bad / "latin.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    (bad / "blob.md").write_bytes(b"\x00\x01\x02binary")
    async with connect("inproc", "legacy", data_dir, config={"corpus": {"max_file_bytes": 4096}}) as client:
        added = await call(client, "corpus_add", {"path": str(bad)})
        reasons = {Path(f["path"]).name: f["reason"] for f in added["failed"]}
        assert set(reasons) == {"broken.pdf", "huge.html", "latin.txt", "blob.md"}, reasons
        assert "4,096" in reasons["huge.html"] and "UTF-8" in reasons["latin.txt"]
        assert "binary" in reasons["blob.md"] and "PDF" in reasons["broken.pdf"]
        one = await client.call_tool("tool_call", {"name": "corpus_add", "arguments": {"path": str(bad / "blob.md")}})
        assert one.is_error and "Traceback" not in text_of(one)
        listing = await call(client, "corpus_list", {})  # the same connection still answers
        assert [i["name"] for i in listing["items"]] == ["good.md"]  # nothing half-added from the failures
        hits = (await call(client, "corpus_search", {"query": "archive checked extraction"}))["hits"]
        assert hits and hits[0]["source"] == "good.md"
