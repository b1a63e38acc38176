"""A PDF is read in a worker process with a memory cap: one that expands far past its size costs that worker,
not the process that asked (a server serving every client), and the next PDF is read by a new worker.

The hostile file is built here: one page whose content stream is a few hundred KB of deflate holding tens
of MB of text operators, which pdfium inflates and parses whole. Before the worker, a bigger one of the same
kind (1.2 MB holding 400 MB) made pdfium abort the process it ran in once its allocations failed.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from reportlab.pdfgen.canvas import Canvas

from deepr_mcp.research.corpus.ingest.pdf import apart
from deepr_mcp.research.corpus.storage import Corpus

SMALL_CAP = 256 * 1024**2
"""Enough for Python and pdfium to read an ordinary PDF, far too little for the expanding one."""


def expanding_pdf(megabytes: int) -> bytes:
    """A valid one-page PDF whose content stream inflates to ``megabytes`` MB of text-drawing operators."""
    unit = b"BT /F1 12 Tf 72 712 Td (Kiln log) Tj ET\n"
    block = unit * (1024 * 1024 // len(unit))
    packer = zlib.compressobj(9)
    stream = b"".join(packer.compress(block) for _ in range(megabytes)) + packer.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def ordinary_pdf(text: str) -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer)
    canvas.drawString(72, 720, text)
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


@pytest.fixture
def small_reader() -> Iterator[apart.Reader]:
    reader = apart.Reader(memory_bytes=SMALL_CAP)
    yield reader
    reader._stop()


def test_a_pdf_that_needs_more_memory_than_the_cap_stops_its_worker_not_the_caller(small_reader: apart.Reader) -> None:
    with pytest.raises(apart.ReaderStopped, match="more than 256 MB of memory"):
        small_reader.extract(expanding_pdf(300))
    lines = [line.text for page in small_reader.extract(ordinary_pdf("Cool the kiln slowly.")).pages for line in page]
    assert lines == ["Cool the kiln slowly."]  # a new worker read the next PDF


def test_a_pdf_the_reader_does_not_answer_in_time_is_given_up() -> None:
    reader = apart.Reader(seconds=0.001)  # the new worker has not even started Python by then
    try:
        with pytest.raises(apart.ReaderStopped, match="longer than"):
            reader.extract(ordinary_pdf("Cool the kiln slowly."))
        assert reader._process is None  # the worker was stopped, a later call starts another
    finally:
        reader._stop()


def test_corpus_add_fails_that_file_with_its_reason_and_adds_the_rest(tmp_path: Path) -> None:
    folder = tmp_path / "manuals"
    folder.mkdir()
    (folder / "bomb.pdf").write_bytes(expanding_pdf(300))
    (folder / "kiln.pdf").write_bytes(ordinary_pdf("Cool the kiln slowly over a whole day."))
    corpus = Corpus(tmp_path / "corpus.db", pdf_memory_bytes=SMALL_CAP)
    report = corpus.add_path(folder)
    outcome = {Path(f.path).name: f for f in report.files}
    assert outcome["bomb.pdf"].status == "failed"
    assert "bomb.pdf: not read: the PDF reader stopped on it" in (outcome["bomb.pdf"].reason or "")
    assert outcome["kiln.pdf"].status == "added"
    assert [p.location for p in corpus.search("kiln slowly", 5)] == ["page 1"]
    corpus.close()


def test_where_no_worker_can_be_started_the_pdf_is_read_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """On Windows (no ``pass_fds``, no address-space limit) a PDF is read in this process, as before the worker:
    an ordinary one gives its text, a damaged one the same refusal the worker gives."""
    monkeypatch.setattr(apart, "APART", False)
    reader = apart.Reader()
    lines = [line.text for page in reader.extract(ordinary_pdf("Cool the kiln slowly.")).pages for line in page]
    assert lines == ["Cool the kiln slowly."] and reader._process is None
    with pytest.raises(apart.ReaderFailed) as refused:
        reader.extract(b"%PDF-1.4 nothing else")
    assert refused.value.kind == "PdfiumError"
