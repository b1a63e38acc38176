"""A rendered page and its source side by side: a folder add reads the HTML and counts the source as excluded."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

from deepr_mcp.research.corpus.ingest import Progress
from deepr_mcp.research.corpus.ingest.twins import RENDERED_SOURCE
from deepr_mcp.research.corpus.storage import Corpus

PAGE = "<html><body><main><h1>{title}</h1><p>{text}</p></main></body></html>"


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    c = Corpus(tmp_path / "data" / "corpus.db")
    yield c
    c.close()


def _pair(folder: Path, stem: str, page: str, source: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}{page}").write_text(PAGE.format(title=stem, text=text))
    body = f"# {stem}\n\n{text}\n".encode()
    (folder / f"{stem}{source}").write_bytes(gzip.compress(body) if source.endswith(".gz") else body)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    _pair(docs / "api", "fs", ".html", ".md", "The fs module reads a file in chunks of sixty-four kilobytes.")
    _pair(docs / "api", "net", ".html", ".markdown", "A socket closes after two minutes without traffic.")
    _pair(docs, "guide", ".htm", ".rst", "The guide explains how the glaze is mixed before firing.")
    _pair(docs, "fontconfig-user", ".html", ".txt.gz", "Fonts are matched by family, then by weight.")
    _pair(docs, "faq", ".html", ".txt", "Kiln shelves are washed with alumina once a season.")
    (docs / "kilnctl.html").write_text(PAGE.format(title="kilnctl(1)", text="kilnctl starts a firing."))
    (docs / "kilnctl.1.gz").write_bytes(gzip.compress(b".TH KILNCTL 1\n.SH NAME\nkilnctl \\- start a firing\n"))
    (docs / "api" / "README.md").write_text("# About\n\nThese pages describe the kiln controller's API.\n")
    (docs / "notes").mkdir()
    # no page beside it: read
    (docs / "notes" / "fs.md").write_text("# Field notes\n\nThe fs bench was repainted in spring.\n")
    return docs


def test_a_pages_source_beside_it_is_excluded_with_the_reason(corpus: Corpus, docs: Path) -> None:
    out = io.StringIO()
    report = corpus.add_path(docs, progress=Progress(out))
    assert {f.name for f in report.files} == {
        "api/README.md",
        "api/fs.html",
        "api/net.html",
        "faq.html",
        "fontconfig-user.html",
        "kilnctl.html",
        "guide.htm",
        "notes/fs.md",
    }
    assert {f.status for f in report.files} == {"added"}
    assert report.excluded == 6 and report.excluded_why == {RENDERED_SOURCE: 6}
    assert out.getvalue().splitlines()[0] == f"adding {docs}: 8 files (6 excluded: {RENDERED_SOURCE}: 6)"
    hits = corpus.search("fs module reads a file in chunks", 5)
    assert [h.source for h in hits if "sixty-four kilobytes" in h.text] == ["api/fs.html"]  # once, not twice
    assert corpus.search("fs bench repainted spring", 1)[0].source == "notes/fs.md"


def test_the_source_is_read_when_its_page_is_not(corpus: Corpus, docs: Path) -> None:
    report = corpus.add_path(docs, exclude=["*.html"])
    names = {f.name for f in report.files}
    assert {"api/fs.md", "api/net.markdown", "faq.txt", "fontconfig-user.txt.gz"} <= names
    assert "guide.htm" in names and "guide.rst" not in names  # .htm pages still win
    assert "kilnctl.1.gz" in names  # the man page is read when its HTML is left out
    assert report.excluded_why == {"an exclude pattern": 5, RENDERED_SOURCE: 1}


def test_a_source_named_on_its_own_is_read(corpus: Corpus, docs: Path) -> None:
    corpus.add_path(docs)
    assert "api/fs.md" not in {d.name for d in corpus.documents()}
    for named in [docs / "api" / "fs.md", docs / "fontconfig-user.txt.gz"]:
        report = corpus.add_path(named)
        assert [(f.name, f.status) for f in report.files] == [(named.name, "added")]
        assert report.excluded == 0
    assert {"fs.md", "fontconfig-user.txt.gz"} <= {d.name for d in corpus.documents()}
