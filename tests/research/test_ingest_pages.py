"""Main-content extraction on pages that look like real Sphinx, MkDocs and Javadoc output.

The fixtures under fixtures/ are hand-written copies of each generator's structure (navigation
bars, sidebars, local tables of contents, permalinks, footers, code in tables and definition
lists), so these tests need no documentation package installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research.corpus.ingest import NotContent, chunk, html_sections, sections_of

FIXTURES = Path(__file__).parent / "fixtures"
FURNITURE = [
    "¶",
    "Navigation",
    "Previous topic",
    "Next topic",
    "This Page",
    "Show Source",
    "Report a Bug",
    "Table of Contents",
    "Table of contents",
    "Copyright",
    "Last updated",
    "Skip navigation",
    "Edit this page",
    "Made with",
    "Methods inherited",
    "Method Summary",
    "JavaScript",
    "Overview",
    "SEARCH",
]


def passages(relative: str) -> list:
    path = FIXTURES / relative
    return chunk(sections_of(path, path.read_bytes()))


def all_text(chunks: list) -> str:
    return "\n".join(f"{c.location}\n{c.text}" for c in chunks)


@pytest.mark.parametrize(
    "page", ["sphinx/library/tarfile.html", "mkdocs/guide/caching.html", "javadoc/com/example/Archive.html"]
)
def test_no_furniture_becomes_a_passage(page: str) -> None:
    chunks = passages(page)
    assert chunks
    text = all_text(chunks)
    for furniture in FURNITURE:
        assert furniture not in text, (furniture, page)


def test_sphinx_headings_are_locations_and_code_stays_code() -> None:
    chunks = passages("sphinx/library/tarfile.html")
    by_location = {c.location: c.text for c in chunks}
    title = "tarfile — Read and write tar archive files"
    assert f"{title} > Extraction filters" in by_location
    assert f"{title} > Extraction filters > Archive safety" in by_location
    # An API entry is a level of the location under its heading, its signature quoted as code.
    extractall = by_location[f"{title} > TarFile Objects > TarFile.extractall"]
    assert extractall.startswith("`TarFile.extractall(path='.', members=None)`")
    assert "Warning: Never extract archives that strangers send" in extractall
    code = by_location[f"{title} > Extraction filters"]
    assert (
        '```python3\nimport tarfile\n\nwith tarfile.open("sample.tar.gz") as tar:\n'
        '    tar.extractall(path="out", filter="data")\n```'
    ) in code
    # A table keeps one row per line.
    assert "'r:gz' | Open for reading with gzip compression." in by_location[f"{title} > tarfile.open"]


def test_mkdocs_code_in_a_line_number_table_keeps_its_lines_not_the_numbers() -> None:
    by_location = {c.location: c.text for c in passages("mkdocs/guide/caching.html")}
    configure = by_location["Caching > Configure the cache"]
    assert '```toml\n[cache]\nbackend = "redis"\nttl_seconds = 300\n```' in configure
    assert "Tip: A time to live of zero" in configure
    assert "def save(page):\n    page.write()\n    cache.invalidate(page.key)" in by_location["Caching > Invalidation"]
    assert by_location["Caching"].startswith("Widgets keeps rendered fragments")


def test_javadoc_class_and_member_details() -> None:
    by_location = {c.location: c.text for c in passages("javadoc/com/example/Archive.html")}
    description = by_location["Class Archive"]
    assert "Reads entries from a compressed archive." in description
    code = "```\ntry (Archive archive = Archive.open(path)) {\n    for (Entry entry : archive.entries()) {"
    assert code in description
    extract = by_location["Class Archive > Method Details > extract"]
    assert extract.startswith("`public void extract(Entry entry, Path destination) throws IOException`")
    assert "rejected with an `IOException`" in extract


@pytest.mark.parametrize(
    ("page", "why"),
    [
        ("sphinx/genindex.html", "index page"),
        ("sphinx/py-modindex.html", "module index"),
        ("sphinx/search.html", "search page"),
        ("sphinx/contents.html", "table of contents"),
        ("sphinx/library/archiving.html", "table of contents page"),
        ("mkdocs/search.html", "search page"),
        ("javadoc/index-all.html", "index page"),
    ],
)
def test_navigation_pages_are_not_content(page: str, why: str) -> None:
    path = FIXTURES / page
    with pytest.raises(NotContent, match=why):
        sections_of(path, path.read_bytes())


def test_a_fetched_page_keeps_its_text_even_when_it_looks_like_navigation() -> None:
    text = (FIXTURES / "sphinx/search.html").read_text()
    sections = html_sections(text, skip_navigation=False)
    assert "Searching for multiple words" in "\n".join(s.text for s in sections)


def test_permalinks_and_pilcrows_never_reach_text_or_locations() -> None:
    html = (
        "<html><body><main><h2>Install<a class='anchor' href='#install'>#</a></h2>"
        "<p>Run the installer ¶ twice.</p><h3>Notes <a href='#n'>¶</a></h3><p>Nothing else is needed here.</p>"
        "</main></body></html>"
    )
    sections = html_sections(html)
    assert [s.location for s in sections] == ["Install", "Install > Notes"]
    assert "¶" not in "".join(s.text for s in sections)
    assert "#" not in "".join(s.location for s in sections)


def test_generic_page_without_a_known_generator() -> None:
    html = (
        "<html><head><title>Plain</title></head><body><header><nav><a href='/'>Home</a><a href='/b'>Blog</a>"
        "</nav></header><div class='sidebar-menu' role='navigation'><ul><li><a href='/x'>X</a></li>"
        "<li><a href='/y'>Y</a></li></ul></div><article><h1>Release notes</h1><p>Version 2 removes the legacy"
        " importer.</p><pre><code class='language-bash'>pip install widgets==2.0\nwidgets migrate</code></pre>"
        "</article><footer>© 2024 Someone</footer></body></html>"
    )
    sections = html_sections(html)
    assert [s.location for s in sections] == ["Release notes"]
    assert sections[0].text == (
        "Version 2 removes the legacy importer.\n\n```bash\npip install widgets==2.0\nwidgets migrate\n```"
    )


def test_a_table_of_nothing_but_links_is_navigation_not_text(tmp_path: Path) -> None:
    """Generators lay out "previous / up / next" bars as tables (texi2any's ``[ << ] | [ Up ] | [ > ]``): a table
    whose words are all links is dropped like a link list; a table of links with descriptions stays."""
    bar = (
        "<table><tr>"
        + "".join(
            f'<td>[<a href="p{i}.html"> {t} </a>]</td>' for i, t in enumerate(["&lt;&lt;", "Up", "&gt;", "Contents"])
        )
        + "</tr></table>"
    )
    kilns = (
        '<table><tr><td><a href="gas.html">Gas kiln</a></td><td>Fires fast and reduces well.</td></tr>'
        '<tr><td><a href="wood.html">Wood kiln</a></td><td>Leaves ash that glazes the pots.</td></tr></table>'
    )
    page = tmp_path / "kilns.html"
    page.write_text(f"<html><body>{bar}<h1>Kilns</h1><p>Pick a kiln by how you fire.</p>{kilns}{bar}</body></html>")
    (section,) = chunk(sections_of(page, page.read_bytes()))
    assert "Up" not in section.text and "Contents" not in section.text and "<<" not in section.text
    assert "Gas kiln | Fires fast and reduces well." in section.text and "Pick a kiln" in section.text


@pytest.mark.parametrize(
    "panel",
    [
        # LaTeX2HTML: a div of image links, then labelled links to the neighbouring pages
        '<div class="navigation"><a href="n3.html"><img alt="next" src="next.png"></a> <br>'
        '<b> Next:</b> <a href="n3.html">Firing schedules</a> <b> Up:</b> <a href="n1.html">The kiln</a>'
        ' <b> Previous:</b> <a href="n2.html">Loading shelves</a></div>',
        # DocBook XSL: a header table whose only words are the book's title
        '<div class="navheader"><table><tr><td><a href="n2.html">Prev</a></td><th>The Kiln Book</th>'
        '<td><a href="n3.html">Next</a></td></tr></table></div>',
        # the same as a bare table, and an element that only says what it is in its class
        '<table class="navfooter"><tr><td><a href="n2.html">Prev</a></td><td>Home</td></tr></table>'
        '<ul class="nav"><li>Part one</li><li>Part two</li></ul>',
    ],
)
def test_an_element_classed_as_navigation_is_dropped(panel: str) -> None:
    """A navigation role named as a class (LaTeX2HTML's panel, DocBook XSL's navheader and navfooter) is page
    furniture like ``role="navigation"``: its labels ("Next:", "Up:") and the book's title are not text, and on
    a generator that repeats it at the top and bottom of every page it would be a passage on every page."""
    html = (
        f"<html><body>{panel}<h1>Cooling</h1><p>Let the kiln cool for a day before opening it.</p>{panel}</body></html>"
    )
    (section,) = html_sections(html)
    assert section.location == "Cooling"
    assert section.text == "Let the kiln cool for a day before opening it."


def test_links_to_the_previous_and_next_page_are_navigation() -> None:
    """Texinfo's header names its links' relation (``rel="prev"``, ``rel="up"``): a block of such links with a
    label each ("Previous:", "Up:") is navigation; a sentence that links the next page in passing is text."""
    header = (
        '<div class="header"><p>Previous: <a href="load.html" rel="prev">Loading shelves</a>, '
        'Up: <a href="kiln.html" rel="up">The kiln</a> &nbsp; [<a href="ix.html" rel="index">Index</a>]</p></div>'
    )
    footer = (  # the same bar at the page's foot names only the index link's relation
        '<div class="header"><p>Next: <a href="load.html">Loading shelves</a>, Up: <a href="kiln.html">The kiln</a>'
        ' &nbsp; [<a href="ix.html" rel="index">Index</a>]</p></div>'
    )
    prose = '<p>Cones bend at known heats; <a href="next.html" rel="next">the next page</a> lists them.</p>'
    html = f"<html><body>{header}<h1>Cooling</h1><p>Let the kiln cool for a day.</p>{prose}{footer}</body></html>"
    (section,) = html_sections(html)
    assert section.text == "Let the kiln cool for a day.\n\nCones bend at known heats; the next page lists them."


def test_a_table_cell_of_several_blocks_reads_as_words_apart() -> None:
    """A cell holding paragraphs, a list or line breaks reads with a space where each block ends ("First.
    Second.", not "First.Second."), and a table nested in a cell is read once, as its cell's text."""
    table = (
        "<table><tr><td><p>Bisque firing.</p><p>Slow start.</p>then hold</td><td>cone<br>06</td>"
        "<td><ul><li>vent open</li><li>lid shut</li></ul></td><td>in<b>line</b> stays</td></tr>"
        "<tr><td><table><tr><td>glaze</td><td>cone 6</td></tr></table></td><td>last</td></tr></table>"
    )
    (section,) = html_sections(f"<html><body><h1>Schedules</h1>{table}</body></html>")
    assert section.text == (
        "Bisque firing. Slow start. then hold | cone 06 | vent open lid shut | inline stays\nglaze cone 6 | last"
    )


def test_a_code_block_keeps_its_code_and_drops_its_controls() -> None:
    """A copy button or a toggle inside ``<pre>`` is no code ("...;copy"); a block holding only two ``<code>``
    versions of one example (ES module and CommonJS, shown one at a time) reads them apart, while a block
    whose code spans sit in running text (a grammar) stays one block as written."""
    versions = (
        '<pre><input class="toggle" type="checkbox" aria-label="Show modules"><code class="language-js mjs">'
        "import kiln from 'kiln';</code><code class=\"language-js cjs\">const kiln = require('kiln');</code>"
        '<button class="copy-button">copy</button></pre>'
    )
    grammar = "<pre>cone ::= <code>number</code> | <code>name</code></pre>"
    (section,) = html_sections(f"<html><body><h1>Loading</h1>{versions}{grammar}</body></html>")
    assert section.text == (
        "```js\nimport kiln from 'kiln';\n\nconst kiln = require('kiln');\n```\n\n```\ncone ::= number | name\n```"
    )


def test_a_headings_bracketed_side_link_is_not_its_title() -> None:
    """``<h2>Stream<a href="...stream.js">[src]</a></h2>``: a link to the source (or an editor) beside a title
    is no part of the heading path every passage below it carries."""
    html = (
        '<html><body><h2>Kiln<a class="srclink" href="https://example.org/kiln.js">[src]</a>'
        '<a href="#kiln">#</a></h2><p>A kiln fires pots.</p></body></html>'
    )
    (section,) = html_sections(html)
    assert section.location == "Kiln"
