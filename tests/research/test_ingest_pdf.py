"""PDF cleaning on a synthetic manual written with reportlab: what reaches the passages.

The fixture has what real manuals have: a contents page with dot leaders, a running header and a
page number on every page, a word hyphenated at a line end whose whole form occurs elsewhere, a
footnote mark and its footnote, a URL cut at a line end, code with straight quotes drawn in a
monospaced font (curly in the PDF's text, as TeX maps it), and an outline (bookmarks).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from deepr_mcp.research.corpus.ingest import chunk, sections_of
from deepr_mcp.research.corpus.storage import Corpus

HEADER = "Widget Handbook"
LEFT, TOP, LEADING = 72, 760, 14

CODE_SETTINGS = [("width", 640), ("height", 480), ("margin", 12), ("border", 2), ("columns", 3)]
CODE_SETTINGS += [("rows", 4), ("gap", 8), ("scale", 2), ("dpi", 96)]  # most of the page's lines end in a number
# Each page: (outline entries as (level, title)), lines as (font, size, text, raised mark or "").
CONTENTS = [f"{title} {'. ' * 30}{page}" for title, page in [("Getting started", 2), ("Search", 3), ("Links", 4)]]
PAGES = [
    {"outline": [], "lines": [("Helvetica-Bold", 14, "Contents", "")] + [("Helvetica", 10, c, "") for c in CONTENTS]},
    {
        "outline": [(0, "Getting started")],
        "lines": [
            ("Helvetica-Bold", 14, "Getting started", ""),
            ("Helvetica", 10, "The widget reads its settings from a file when it starts and keeps them", ""),
            ("Helvetica", 10, "in memory until it stops. Every setting has a default, so an empty file", ""),
            ("Helvetica", 10, "is a valid configuration. The facility that reads settings also checks", ""),
            ("Helvetica", 10, "their types and refuses a file with unknown names.", ""),
            ("Helvetica", 10, "Settings follow the widget standard", "1"),
            ("Helvetica", 10, "for names, so a name is lower case with", ""),
            ("Helvetica", 10, "underscores between its words and never starts with a digit or a dot.", ""),
            ("Helvetica", 10, "A setting\u2019s value may be quoted, as in this example:", ""),
            ("Courier", 10, "greeting=\u2019hello world\u2019", ""),  # a TeX-style PDF maps the code quote to U+2019
            ("Courier", 10, '  echo "$greeting"', ""),
        ],
        "footnote": ("1", "The widget standard is published by the makers of the widget."),
    },
    {
        "outline": [(0, "Search"), (1, "Indexing")],
        "lines": [
            ("Helvetica-Bold", 14, "Search", ""),
            ("Helvetica", 10, "The search fa-", ""),
            ("Helvetica", 10, "cility finds a setting by its name or by a word of its description.", ""),
            ("Helvetica-Bold", 12, "Indexing", ""),
            ("Helvetica", 10, "Every name is indexed when the file is read, and the index is rebuilt", ""),
            ("Helvetica", 10, "whenever the file changes on disk, so a search never sees stale names.", ""),
            ("Courier", 10, "max_results", ""),  # a definition list: the term in a code font, its text indented
            ("Helvetica", 10, "        The most settings one search returns, 20 unless it is set.", ""),
            ("Helvetica", 10, "Its size grows as n", "2"),  # an exponent: raised like a mark, with no footnote
            ("Helvetica", 10, "for n names, which stays small for any real settings file.", ""),
        ],
    },
    {
        "outline": [(0, "Links")],
        "lines": [
            ("Helvetica-Bold", 14, "Links", ""),
            ("Helvetica", 10, "The full reference for every setting is online at https://", ""),
            ("Helvetica", 10, "widgets.example.org/handbook/settings.html and is updated with each", ""),
            ("Helvetica", 10, "release of the widget.", ""),
            ("Helvetica", 10, "These settings size the window:", ""),
            *[("Courier", 10, f"set {name} {value}", "") for name, value in CODE_SETTINGS],
        ],
    },
]


def _manual() -> bytes:
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4)
    for number, page in enumerate(PAGES, start=1):
        canvas.setFont("Helvetica", 9)
        canvas.drawString(LEFT, 800, f"{HEADER}    Chapter {number}")  # running header
        canvas.drawString(300, 40, str(number))  # page number at the foot
        y = TOP
        outline = list(page["outline"])
        for font, size, text, mark in page["lines"]:
            if outline and font.endswith("Bold") and text == outline[0][1]:
                level, title = outline.pop(0)
                key = f"p{number}-{title}"
                canvas.bookmarkPage(key, fit="XYZ", top=y + size)
                canvas.addOutlineEntry(title, key, level=level)
            canvas.setFont(font, size)
            indent = canvas.stringWidth(text[: len(text) - len(text.lstrip())], font, size)
            canvas.drawString(LEFT + indent, y, text.lstrip())
            if mark:
                x = LEFT + canvas.stringWidth(text, font, size)
                canvas.setFont(font, 6)
                canvas.drawString(x, y + 4, mark)
                canvas.setFont(font, size)
                canvas.drawString(x + canvas.stringWidth(mark, font, 6) + 3, y, "")
            y -= LEADING + (6 if font.endswith("Bold") else 0)
        if "footnote" in page:
            mark, text = page["footnote"]
            canvas.setFont("Helvetica", 5)
            canvas.drawString(LEFT, 84, mark)
            canvas.setFont("Helvetica", 8)
            canvas.drawString(LEFT + 5, 80, text)
        canvas.showPage()
    canvas.save()
    return out.getvalue()


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pdf") / "handbook.pdf"
    path.write_bytes(_manual())
    return path


@pytest.fixture(scope="module")
def passages(manual: Path) -> list:
    return chunk(sections_of(manual, manual.read_bytes()))


def test_running_headers_and_page_numbers_are_gone(passages: list) -> None:
    text = "\n".join(p.text for p in passages)
    assert HEADER not in text and "Chapter" not in text
    assert not any(p.text.rstrip().endswith((" 2", " 3", " 4")) for p in passages)


def test_contents_page_never_becomes_a_passage(passages: list) -> None:
    assert not any(". . ." in p.text for p in passages)
    assert not any(p.location == "page 1" for p in passages)


def test_line_end_hyphen_joined_with_the_documents_own_word(passages: list) -> None:
    search = next(p for p in passages if p.location == "Search")
    assert "The search facility finds a setting" in search.text
    assert "fa-" not in search.text and "fa- cility" not in search.text


def test_footnote_mark_detached_and_footnote_out_of_the_sentence(passages: list) -> None:
    started = [p.text for p in passages if p.location == "Getting started"]
    body = "\n\n".join(started)
    assert "the widget standard for names, so a name is lower case" in body  # the sentence is whole
    assert "standard1" not in body
    assert "Footnote 1: The widget standard is published by the makers of the widget." in body
    sentence_at = body.index("Settings follow the widget standard")
    assert body.index("Footnote 1:") > sentence_at  # the note follows the text, it does not cut it


def test_a_raised_digit_without_a_footnote_stays_in_the_text(passages: list) -> None:
    indexing = next(p for p in passages if p.location == "Search > Indexing")
    assert "Its size grows as n2 for n names" in indexing.text


def test_a_code_font_term_stays_with_its_indented_description(passages: list) -> None:
    indexing = next(p for p in passages if p.location == "Search > Indexing")
    assert "max_results The most settings one search returns, 20 unless it is set." in indexing.text
    assert "```\nmax_results\n```" not in indexing.text


def test_url_split_at_a_line_end_is_one_url(passages: list) -> None:
    links = next(p for p in passages if p.location == "Links")
    assert "https://widgets.example.org/handbook/settings.html and is updated" in links.text


def test_a_page_of_code_lines_ending_in_numbers_is_not_an_index(passages: list) -> None:
    links = "\n".join(p.text for p in passages if p.location == "Links")
    assert "```\n" + "\n".join(f"set {name} {value}" for name, value in CODE_SETTINGS) + "\n```" in links


def test_code_in_a_monospaced_font_is_fenced_with_ascii_quotes(passages: list) -> None:
    text = "\n".join(p.text for p in passages)
    assert "```\ngreeting='hello world'\n  echo \"$greeting\"\n```" in text  # copied, it runs
    assert "A setting\u2019s value" in text  # prose keeps its typographic apostrophe


def test_passages_carry_outline_heading_paths_and_end_at_sentences(passages: list) -> None:
    locations = [p.location for p in passages]
    assert locations == ["Getting started", "Search", "Search > Indexing", "Links"], locations
    for p in passages:
        assert p.text.rstrip().endswith((".", "```")), p.text  # no passage stops mid-sentence
        assert not p.text.startswith(("Getting started", "Search", "Indexing", "Links"))  # the heading is the location


def test_corpus_search_finds_clean_passages_by_heading(manual: Path, tmp_path: Path) -> None:
    corpus = Corpus(tmp_path / "corpus.db", max_bytes=1_000_000)
    assert [f.status for f in corpus.add_path(manual).files] == ["added"]
    hit = corpus.search("facility")[0]
    assert hit.location == "Search" and "search facility finds" in hit.text
    assert corpus.search("Chapter") == []  # the running header is not searchable


def _plain_pdf(pages: list[list[str]]) -> bytes:
    """Pages of Helvetica lines from the top down, no outline."""
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4)
    for lines in pages:
        canvas.setFont("Helvetica", 10)
        for row, text in enumerate(lines):
            canvas.drawString(LEFT, TOP - row * LEADING, text)
        canvas.showPage()
    canvas.save()
    return out.getvalue()


def test_without_an_outline_a_paragraph_running_over_a_full_page_stays_whole(tmp_path: Path) -> None:
    filler = "Each tray of the rack holds twelve widgets and a label naming the batch they came from."
    first = [filler] * 11 + ["When a tray is full, the operator moves it to the shelf marked for"]
    second = ["its batch and starts the next tray.", *[filler] * 11]
    third = ["Trays are cleaned every week.", *[filler] * 11]
    path = tmp_path / "plain.pdf"
    path.write_bytes(_plain_pdf([first, second, third]))
    passages = chunk(sections_of(path, path.read_bytes()))
    whole = "shelf marked for its batch and starts the next tray."
    assert [p.location for p in passages if whole in p.text] == ["page 1"]  # cited where it starts
    assert next(p.location for p in passages if "Trays are cleaned" in p.text) == "page 3"
    assert not any(p.text.rstrip().endswith("marked for") for p in passages)
