"""Word documents, EPUB books and Jupyter notebooks read as clean text under their headings, and every
hostile package (a zip bomb, an XML entity bomb, a lie about its type, too many entries) refused with
its reason. The documents are made-up kiln-manual text."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest import sections_of
from deepr_mcp.research.corpus.ingest.packaged import zipped as zipped_module
from deepr_mcp.research.corpus.storage import Corpus
from tests.research.packages import (
    STYLES,
    chapter,
    docx,
    encrypted,
    entity_bomb,
    epub,
    notebook,
    odt,
    para,
    table,
    zipped,
)

KILN = Path("kiln.docx")


def located(path: Path, raw: bytes, **kwargs: int) -> dict[str, str]:
    return {s.location: s.text for s in sections_of(path, raw, **kwargs)}


def test_a_word_document_reads_by_its_headings_with_tables_lists_and_no_deleted_text() -> None:
    raw = docx(
        para("Kiln manual", "Title"),
        para("Firing", "Heading1"),
        para("Fire the bisque slowly to cone 04.", deleted="Fire it fast."),
        para("Cooling", "KilnHeading"),  # a custom style based on heading 2
        para("Open the lid only below 100 degrees.", listed=True),
        table(("Cone", "Degrees"), ("04", "1060")),
        para("Check the elements.", "ListBullet"),  # a list style: numbered in the style, not the paragraph
    )
    sections = located(KILN, raw)
    assert sections["Kiln manual > Firing"] == "Fire the bisque slowly to cone 04."
    assert (
        sections["Kiln manual > Firing > Cooling"]
        == "- Open the lid only below 100 degrees.\n\nCone | Degrees\n04 | 1060\n\n- Check the elements."
    )
    assert "fast" not in " ".join(sections.values())


def test_an_opendocument_text_reads_by_its_outline_levels_without_its_footnotes() -> None:
    raw = odt(
        '<text:h text:outline-level="1">Firing</text:h>'
        '<text:p>Fire the bisque<text:s text:c="2"/>slowly'
        "<text:note><text:note-citation>1</text:note-citation><text:note-body><text:p>In winter.</text:p>"
        "</text:note-body></text:note> to cone 04.</text:p>"
        '<text:h text:outline-level="2">Cooling</text:h>'
        "<text:list><text:list-item><text:p>Open the lid below 100 degrees.</text:p>"
        "<text:list><text:list-item><text:p>Never sooner.</text:p></text:list-item></text:list>"
        "</text:list-item></text:list>"
        "<table:table><table:table-row><table:table-cell><text:p>Cone</text:p></table:table-cell>"
        "<table:table-cell><text:p>04</text:p><text:p>bisque</text:p></table:table-cell></table:table-row></table:table>"
    )
    sections = located(Path("kiln.odt"), raw)
    assert sections == {
        "Firing": "Fire the bisque  slowly to cone 04.",
        "Firing > Cooling": "- Open the lid below 100 degrees.\n\n- Never sooner.\n\nCone | 04 bisque",
    }


def test_an_epub_reads_its_chapters_in_spine_order_and_skips_its_contents_page() -> None:
    chapters = {
        "nav.xhtml": chapter(
            "Contents",
            '<nav epub:type="toc"><ol><li><a href="c1.xhtml">Firing</a></li>'
            '<li><a href="c2.xhtml">Glazes</a></li><li><a href="c3.xhtml">Kilns</a></li></ol></nav>',
        ),
        "c2.xhtml": chapter("Glazes", "<h1>Glazes</h1><p>Celadon needs a reduction firing.</p>"),
        "c1.xhtml": chapter("Firing", "<h1>Firing</h1><p>Bisque first, then glaze.</p>"),
    }
    sections = sections_of(Path("kiln.epub"), epub(chapters, ["nav.xhtml", "c1.xhtml", "c2.xhtml", "gone.xhtml"]))
    assert [s.text for s in sections] == ["Bisque first, then glaze.", "Celadon needs a reduction firing."]
    assert [s.location.split(" > ")[-1] for s in sections] == ["Firing", "Glazes"]
    assert sections[1].start > sections[0].start


def test_a_notebook_reads_markdown_and_code_without_outputs() -> None:
    raw = notebook(
        ("markdown", ["# Firing log\n", "\n", "Each firing's peak temperature, from the controller.\n"]),
        ("code", "peak = max(log.temperature)\nprint(peak)"),
        ("raw", "ignored"),
    )
    (section,) = sections_of(Path("log.ipynb"), raw)
    assert section.location == "Firing log"
    assert "```python\npeak = max(log.temperature)\nprint(peak)\n```" in section.text
    assert "1200" not in section.text and "ignored" not in section.text


def test_added_to_a_corpus_each_is_searchable(tmp_path: Path) -> None:
    (tmp_path / "kiln.docx").write_bytes(docx(para("Cooling", "Heading1"), para("Crack the lid at 200 degrees.")))
    (tmp_path / "log.ipynb").write_bytes(notebook(("markdown", "# Peak\n\nThe shelf thermocouple reads high.")))
    corpus = Corpus(tmp_path / "corpus.db")
    for name in ("kiln.docx", "log.ipynb"):
        corpus.add_path(tmp_path / name)
    assert corpus.search("lid degrees")[0].location == "Cooling"
    assert corpus.search("thermocouple")[0].source == "log.ipynb"


def test_a_zip_bomb_is_refused_without_unpacking_it() -> None:
    bomb = docx(para("x" * 2_000_000))  # deflates to a few KB, inflates past the limit below
    with pytest.raises(InvalidInput, match="decompresses to more than the 1,000,000-byte limit per file"):
        sections_of(KILN, bomb, max_bytes=1_000_000)


def test_an_xml_entity_bomb_is_refused() -> None:
    with pytest.raises(InvalidInput, match="declares a DTD"):
        sections_of(KILN, entity_bomb())


@pytest.mark.parametrize(
    ("name", "raw", "reason"),
    [
        ("kiln.docx", b"just some text", "is not a readable Word document file"),
        ("kiln.docx", zipped({"word/styles.xml": STYLES}), "has no 'word/document.xml' part"),
        ("kiln.docx", zipped({"word/document.xml": "<w:document", "word/styles.xml": STYLES}), "not well-formed XML"),
        ("kiln.epub", zipped({"mimetype": "application/epub+zip"}), "has no 'META-INF/container.xml' part"),
        ("kiln.odt", zipped({"mimetype": "application/vnd.oasis.opendocument.text"}), "has no 'content.xml' part"),
        ("log.ipynb", b"{not json", "not valid JSON"),
        ("log.ipynb", json.dumps({"nbformat": 3, "worksheets": []}).encode(), "nbformat 3 keeps its cells elsewhere"),
        ("log.ipynb", b"[" * 100_000 + b"]" * 100_000, "Jupyter notebook"),
    ],
)
def test_a_broken_package_is_refused_with_its_reason(name: str, raw: bytes, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason) as refused:
        sections_of(Path(name), raw)
    assert name in refused.value.message


def test_too_many_entries_or_an_encrypted_part_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(zipped_module, "MAX_MEMBERS", 3)
    crowded = zipped({f"word/media/{n}.png": b"" for n in range(5)})
    with pytest.raises(InvalidInput, match="lists 5 entries"):
        sections_of(KILN, crowded)
    monkeypatch.undo()
    locked = encrypted(docx(para("secret")))
    with pytest.raises(InvalidInput, match="encrypted"):
        sections_of(KILN, locked)
    assert zipfile.is_zipfile(io.BytesIO(locked))
