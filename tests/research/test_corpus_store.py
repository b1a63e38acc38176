"""The FTS5 corpus: adds, re-adds, replacements, locations, hostile queries and bad files."""

from __future__ import annotations

from pathlib import Path

import pytest
from pypdf import PdfWriter

from deepr_mcp.errors import InvalidInput, NotFound
from deepr_mcp.research.corpus.storage import Corpus

SAMPLES = Path(__file__).resolve().parents[2] / "deepr_mcp" / "data" / "samples" / "cables"


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return Corpus(tmp_path / "corpus.db", max_bytes=50_000)


def test_add_unchanged_changed_remove(corpus: Corpus, tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("# Cables\n\n## Repair\n\nA grapnel hooks the cable from the sea floor.\n")
    first = corpus.add_path(doc)
    assert [f.status for f in first.files] == ["added"]
    ids = [p.id for p in corpus.search("grapnel")]
    assert [f.status for f in corpus.add_path(doc).files] == ["unchanged"]
    assert [p.id for p in corpus.search("grapnel")] == ids  # stable ids
    doc.write_text("# Cables\n\n## Repair\n\nA repair ship splices in new cable.\n")
    assert [f.status for f in corpus.add_path(doc).files] == ["replaced"]
    assert corpus.search("grapnel") == []
    hit = corpus.search("splices")[0]
    assert hit.location == "Cables > Repair" and hit.source == "doc.md" and hit.path == str(doc.resolve())
    assert corpus.passage(hit.id).text == hit.text
    assert corpus.remove(doc) == 1
    assert corpus.stats() == {"documents": 0, "passages": 0}
    with pytest.raises(NotFound):
        corpus.remove(doc)


def test_sample_corpus_ranks_the_right_passage(corpus: Corpus) -> None:
    report = corpus.add_path(SAMPLES)
    assert report.count("added") == 6 and report.count("failed") == 0
    best = corpus.search("why did the 1858 cable fail", 1)[0]
    assert "Why it failed" in best.location
    assert best.score > 0


def test_formats_and_locations(corpus: Corpus, tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(
        "<html><head><title>t</title><style>.x{}</style></head><body><h1>Laying</h1>"
        "<script>var secret = 1;</script><p>The Great Eastern laid the 1866 cable.</p></body></html>"
    )
    (tmp_path / "notes.rst").write_text("Repeaters\n=========\n\nOptical amplifiers boost the light every 60 km.\n")
    (tmp_path / "plain.txt").write_text("Gutta-percha insulated the early telegraph cables well.\n")
    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    with (tmp_path / "blank.pdf").open("wb") as fh:
        writer.write(fh)
    report = corpus.add_path(tmp_path)
    statuses = {Path(f.path).name: f.status for f in report.files}
    assert statuses == {"page.html": "added", "notes.rst": "added", "plain.txt": "added", "blank.pdf": "failed"}
    html_hit = corpus.search("Great Eastern")[0]
    assert html_hit.location == "Laying" and "secret" not in html_hit.text
    assert corpus.search("amplifiers")[0].location == "Repeaters"


def test_pdf_pages_are_locations(corpus: Corpus, tmp_path: Path) -> None:
    pdf = tmp_path / "doc.pdf"
    pdf.write_bytes(_tiny_pdf(["first page talks about gutta percha", "second page talks about repeaters"]))
    corpus.add_path(pdf)
    assert corpus.search("repeaters")[0].location == "page 2"


@pytest.mark.parametrize(
    "query", ['"', "AND OR NOT", "*", "NEAR(", "col:value", "^start", "-x", "ümlaut 名", "(((", "a" * 3000]
)
def test_hostile_queries_never_raise(corpus: Corpus, query: str) -> None:
    corpus.add_path(SAMPLES)
    hits = corpus.search(query)
    assert len(hits) <= 10 and all(corpus.passage(p.id).text == p.text for p in hits)  # stored passages, or none


def test_bad_files_are_clear_errors_and_leave_the_corpus_consistent(corpus: Corpus, tmp_path: Path) -> None:
    good = tmp_path / "good.md"
    good.write_text("# Ok\n\nThe cable worked for three weeks.\n")
    corpus.add_path(good)
    before = corpus.stats()
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"abc\x00def")
    huge = tmp_path / "huge.md"
    huge.write_text("word " * 20_000)
    latin = tmp_path / "latin.txt"
    latin.write_bytes("caf\xe9".encode("latin-1") + b" more words here")
    fake_pdf = tmp_path / "fake.pdf"
    fake_pdf.write_text("not a pdf")
    cases = [(binary, "binary"), (huge, "over the 50,000-byte limit"), (latin, "not UTF-8"), (fake_pdf, "not a PDF")]
    for path, message in cases:
        with pytest.raises(InvalidInput, match=message):
            corpus.add_path(path)
    with pytest.raises(NotFound, match="no such file"):
        corpus.add_path(tmp_path / "missing.md")
    with pytest.raises(InvalidInput, match="unsupported file type"):
        corpus.add_path(_touch(tmp_path / "x.xlsx"))
    with pytest.raises(InvalidInput, match="not a readable Word document"):
        corpus.add_path(_touch(tmp_path / "x.docx"))
    folder_report = corpus.add_path(tmp_path)
    assert {Path(f.path).name for f in folder_report.files if f.status == "failed"} >= {"bin.txt", "huge.md"}
    assert corpus.stats() == before
    with pytest.raises(InvalidInput, match="limit"):
        corpus.search("cable", 0)


def _touch(path: Path) -> Path:
    path.write_text("x")
    return path


def _tiny_pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF with one line of text per page (Helvetica), offsets computed."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>")
    font_obj = 3 + 2 * len(pages)
    for i, text in enumerate(pages):
        content = f"BT /F1 12 Tf 20 100 Td ({text}) Tj ET"
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font_obj} 0 R >> >> >>"
        )
        objects.append(f"<< /Length {len(content)} >>\nstream\n{content}\nendstream")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def test_a_second_connection_opening_the_corpus_does_not_break_searches_of_the_first(tmp_path: Path) -> None:
    """A CLI `corpus search` beside a running server: opening the corpus used to rewrite FTS5's
    rank setting, and every search of the other connection then failed with "SQL logic error"."""
    first = Corpus(tmp_path / "corpus.db")
    try:
        first.add_texts("notes", [f"cargo crate {i} unpacks parts onto a shelf" for i in range(20)])
        assert first.search("cargo crate", 5)
        for _ in range(5):
            Corpus(tmp_path / "corpus.db").close()
            assert len(first.search("cargo crate", 5)) == 5
    finally:
        first.close()
