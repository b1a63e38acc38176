"""corpus_add over stdio on a documentation folder as users have them: gzip-compressed pages, and
pages shipped twice (the HTML and its source). The answer says what was read, what was left out and
why, and what failed and why; a bad file never stops the rest."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from tests.clients import call, connect
from tests.research.packages import chapter, docx, encrypted, entity_bomb, epub, notebook, para
from tests.research.test_ingest_pdf_apart import expanding_pdf, ordinary_pdf

RENDERED_SOURCE = "the source of an HTML page beside it (the page is read instead)"


def _bomb(megabytes: int) -> bytes:
    packer, zeros = zlib.compressobj(9, zlib.DEFLATED, 31), bytes(1 << 20)
    return b"".join([*(packer.compress(zeros) for _ in range(megabytes)), packer.flush()])


async def test_compressed_pages_and_page_source_twins_over_stdio(empty_data_dir: Path, tmp_path: Path) -> None:
    docs = tmp_path / "doc"
    docs.mkdir()
    news = gzip.compress(b"# Release 3.0\n\nThe kiln controller now logs every firing curve.\n")
    (docs / "NEWS.md.gz").write_bytes(news)
    (docs / "fs.html").write_text("<html><body><main><h1>fs</h1><p>Files are read in chunks.</p></main></body></html>")
    (docs / "fs.md").write_text("# fs\n\nFiles are read in chunks.\n")
    (docs / "truncated.txt.gz").write_bytes(news[:-12])
    (docs / "bomb.txt.gz").write_bytes(_bomb(8))
    (docs / "changelog.Debian.gz").write_bytes(gzip.compress(b"kiln (3.0-1) unstable; urgency=low\n"))
    config = {"corpus": {"max_file_bytes": 1 << 20}}
    async with connect("stdio", "legacy", empty_data_dir, config=config) as client:
        added = await call(client, "corpus_add", {"path": str(docs)})
        assert added["added"] == 2 and added["passages_indexed"] == 2
        assert added["excluded"] == 1 and added["excluded_why"] == {RENDERED_SOURCE: 1}
        failed = {Path(f["path"]).name: f["reason"] for f in added["failed"]}
        assert set(failed) == {"truncated.txt.gz", "bomb.txt.gz"}
        assert "the gzip data is truncated" in failed["truncated.txt.gz"]
        assert "decompresses to more than the 1,048,576-byte limit per file" in failed["bomb.txt.gz"]
        listing = await call(client, "corpus_list", {})
        assert sorted(item["name"] for item in listing["items"]) == ["NEWS.md.gz", "fs.html"]
        hits = (await call(client, "corpus_search", {"query": "firing curve logs", "mode": "lexical"}))["hits"]
        assert hits[0]["source"] == "NEWS.md.gz" and hits[0]["location"] == "Release 3.0"


async def test_a_pdf_that_would_exhaust_memory_fails_alone_and_the_server_goes_on(
    empty_data_dir: Path, tmp_path: Path
) -> None:
    """A PDF whose one page inflates to hundreds of MB (pdfium aborted the process it ran in) is read by the
    capped worker: that file fails with the reason, the ordinary PDF beside it is added, the server answers on."""
    docs = tmp_path / "manuals"
    docs.mkdir()
    (docs / "bomb.pdf").write_bytes(expanding_pdf(300))
    (docs / "kiln.pdf").write_bytes(ordinary_pdf("Cool the kiln slowly over a whole day."))
    config = {"corpus": {"pdf_reader_memory_bytes": 256 * 1024**2}}
    async with connect("stdio", "legacy", empty_data_dir, config=config) as client:
        added = await call(client, "corpus_add", {"path": str(docs)})
        assert added["added"] == 1
        (failed,) = added["failed"]
        assert Path(failed["path"]).name == "bomb.pdf"
        assert "not read: the PDF reader stopped on it (it needs more than 256 MB of memory" in failed["reason"]
        hits = (await call(client, "corpus_search", {"query": "kiln slowly", "mode": "lexical"}))["hits"]
        assert hits[0]["source"] == "kiln.pdf"


async def test_word_epub_and_notebook_files_over_stdio(empty_data_dir: Path, tmp_path: Path) -> None:
    """A folder of a user's own documents: each format searchable under its headings; a zip bomb, an XML entity
    bomb, an encrypted package and a file misnamed .epub each refused with its reason, and the server serves on."""
    docs = tmp_path / "mine"
    docs.mkdir()
    (docs / "kiln.docx").write_bytes(docx(para("Cooling", "Heading1"), para("Crack the lid open at 200 degrees.")))
    book = {"c1.xhtml": chapter("Glazes", "<h1>Glazes</h1><p>Celadon wants a reduction atmosphere.</p>")}
    (docs / "glazes.epub").write_bytes(epub(book, ["c1.xhtml"]))
    (docs / "log.ipynb").write_bytes(notebook(("markdown", "# Thermocouple\n\nThe shelf thermocouple reads high.")))
    (docs / "bomb.docx").write_bytes(docx(para("x" * 3_000_000)))
    (docs / "laughs.docx").write_bytes(entity_bomb())
    (docs / "locked.docx").write_bytes(encrypted(docx(para("secret"))))
    (docs / "renamed.epub").write_bytes(b"%PDF-1.7 not a zip")
    config = {"corpus": {"max_file_bytes": 1 << 20}}
    async with connect("stdio", "legacy", empty_data_dir, config=config) as client:
        added = await call(client, "corpus_add", {"path": str(docs)})
        assert added["added"] == 3
        failed = {Path(f["path"]).name: f["reason"] for f in added["failed"]}
        assert "decompresses to more than" in failed["bomb.docx"]
        assert "declares a DTD" in failed["laughs.docx"] and "encrypted" in failed["locked.docx"]
        assert "is not a readable EPUB book file" in failed["renamed.epub"] and len(failed) == 4
        for query, source, location in [
            ("lid degrees", "kiln.docx", "Cooling"),
            ("reduction atmosphere", "glazes.epub", "Glazes"),
            ("thermocouple reads high", "log.ipynb", "Thermocouple"),
        ]:
            (hit, *_) = (await call(client, "corpus_search", {"query": query, "mode": "lexical"}))["hits"]
            assert (hit["source"], hit["location"]) == (source, location)
