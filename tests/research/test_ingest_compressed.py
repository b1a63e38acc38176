"""Gzip-compressed documents: read as the document inside, refused clearly when damaged or too big."""

from __future__ import annotations

import gzip
import io
import tracemalloc
import zlib
from pathlib import Path

import pytest
from reportlab.pdfgen.canvas import Canvas

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest import chunk, sections_of
from deepr_mcp.research.corpus.ingest.compressed import inflate
from deepr_mcp.research.corpus.storage import Corpus

KILN = "The kiln reaches its glaze temperature after four hours of slow firing."


def _pdf() -> bytes:
    out = io.BytesIO()
    canvas = Canvas(out)
    canvas.drawString(72, 760, "Firing")
    canvas.drawString(72, 740, KILN)
    canvas.showPage()
    canvas.save()
    return out.getvalue()


DOCUMENTS = {
    "guide.md": f"# Firing\n\n{KILN}\n".encode(),
    "guide.markdown": f"# Firing\n\n{KILN}\n".encode(),
    "guide.txt": f"Firing\n\n{KILN}\n".encode(),
    "guide.rst": f"Firing\n======\n\n{KILN}\n".encode(),
    "guide.html": f"<html><body><main><h1>Firing</h1><p>{KILN}</p></main></body></html>".encode(),
    "guide.htm": f"<html><body><main><h1>Firing</h1><p>{KILN}</p></main></body></html>".encode(),
    "guide.pdf": _pdf(),
}


def _bomb(megabytes: int) -> bytes:
    """A gzip of ``megabytes`` MB of zeros (about 1 KB per MB), built without holding the zeros."""
    packer, zeros = zlib.compressobj(9, zlib.DEFLATED, 31), bytes(1 << 20)
    return b"".join([*(packer.compress(zeros) for _ in range(megabytes)), packer.flush()])


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_a_gzipped_document_is_read_like_the_plain_file(tmp_path: Path, name: str) -> None:
    plain = tmp_path / name
    plain.write_bytes(DOCUMENTS[name])
    packed = tmp_path / f"{name}.gz"
    packed.write_bytes(gzip.compress(DOCUMENTS[name]))
    expected = [(c.location, c.text) for c in chunk(sections_of(plain, plain.read_bytes()))]
    assert expected and KILN in expected[0][1]
    assert [(c.location, c.text) for c in chunk(sections_of(packed, packed.read_bytes()))] == expected


def test_a_folder_of_gzipped_documents_is_added_under_their_real_names(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "policy").mkdir(parents=True)
    news = b"# Release 2.1\n\nThe glaze mixer now stops when its lid opens.\n"
    (docs / "NEWS.md.gz").write_bytes(gzip.compress(news))
    (docs / "policy" / "python-policy.TXT.GZ").write_bytes(gzip.compress(f"Firing\n\n{KILN}\n".encode()))
    for unsupported in ["changelog.Debian.gz", "data.json.gz", "twice.md.gz.gz"]:
        (docs / unsupported).write_bytes(gzip.compress(b"# Not read\n\nunsupported inner type\n"))
    corpus = Corpus(tmp_path / "data" / "corpus.db")
    try:
        report = corpus.add_path(docs)
        outcome = {f.name: f.status for f in report.files}
        assert outcome == {"NEWS.md.gz": "added", "policy/python-policy.TXT.GZ": "added"}
        assert report.excluded == 0  # unsupported types are not listed, as for any other unsupported file
        hit = corpus.search("glaze mixer lid", 1)[0]
        assert hit.source == "NEWS.md.gz" and hit.path == str((docs / "NEWS.md.gz").resolve())
        assert hit.location == "Release 2.1"
        assert corpus.search("glaze temperature slow firing", 1)[0].source == "policy/python-policy.TXT.GZ"
        for unsupported, shown in [("data.json.gz", ".json.gz"), ("twice.md.gz.gz", ".gz.gz")]:
            with pytest.raises(InvalidInput, match=r"unsupported file type; supported: .*gzip-compressed"):
                corpus.add_path(docs / unsupported)
            with pytest.raises(InvalidInput, match=rf"unsupported file type {shown}; supported"):
                sections_of(docs / unsupported, (docs / unsupported).read_bytes())
    finally:
        corpus.close()


def test_damaged_or_oversized_gzips_fail_with_the_reason_and_the_rest_is_added(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text(f"# Firing\n\n{KILN}\n")
    packed = gzip.compress(b"# Cooling\n\nOpen the kiln only below two hundred degrees.\n")
    (docs / "cooling.md.gz").write_bytes(packed)
    (docs / "truncated.md.gz").write_bytes(packed[: len(packed) // 2])
    damaged = bytearray(packed)
    damaged[12:20] = b"\xff" * 8  # the deflate blocks, past the 10-byte header
    (docs / "damaged.md.gz").write_bytes(bytes(damaged))
    (docs / "renamed.txt.gz").write_text("plain text that was never compressed\n")
    (docs / "nested.md.gz").write_bytes(gzip.compress(packed))
    (docs / "bomb.txt.gz").write_bytes(_bomb(64))
    corpus = Corpus(tmp_path / "data" / "corpus.db", max_bytes=1 << 20)
    try:
        report = corpus.add_path(docs)
        failed = {f.name: f.reason or "" for f in report.files if f.status == "failed"}
        assert {f.name for f in report.files if f.status == "added"} == {"good.md", "cooling.md.gz"}
        assert set(failed) == {"truncated.md.gz", "damaged.md.gz", "renamed.txt.gz", "nested.md.gz", "bomb.txt.gz"}
        assert failed["truncated.md.gz"].startswith(f"{docs / 'truncated.md.gz'}: the gzip data is truncated")
        assert failed["damaged.md.gz"].startswith(f"{docs / 'damaged.md.gz'}: the gzip data is damaged")
        assert "has a .gz name but is not valid gzip data" in failed["renamed.txt.gz"]
        assert "only one layer of compression is read" in failed["nested.md.gz"]
        assert "decompresses to more than the 1,048,576-byte limit per file" in failed["bomb.txt.gz"]
        assert "corpus.max_file_bytes" in failed["bomb.txt.gz"]
        assert not [r for r in failed.values() if "Traceback" in r]
        assert corpus.search("two hundred degrees", 1)[0].source == "cooling.md.gz"
    finally:
        corpus.close()


def test_a_gzip_bomb_is_refused_without_being_inflated() -> None:
    bomb = _bomb(128)  # 128 MB inside, about 130 KB on disk
    tracemalloc.start()
    try:
        with pytest.raises(InvalidInput, match="decompresses to more than the 65,536-byte limit"):
            inflate(Path("bomb.txt.gz"), bomb, 65_536)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024  # a few buffers, never the 128 MB
