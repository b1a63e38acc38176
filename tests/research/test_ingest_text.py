"""Markdown and rst keep their code blocks; chunking packs prose and never cuts a fence badly."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest import MAX_CHARS, Section, chunk, sections_of
from deepr_mcp.research.corpus.ingest.chunking import CONTEXT_FREE_CHARS, blocks_of

ODD = Path(__file__).parent / "fixtures" / "odd"


def by_location(name: str) -> dict[str, str]:
    path = ODD / name
    return {c.location: c.text for c in chunk(sections_of(path, path.read_bytes()))}


def test_markdown_fences_and_indented_code_stay_code() -> None:
    found = by_location("notes.md")
    assert set(found) == {"Deploying", "Deploying > Rollback"}  # '# this is a comment' is no heading
    assert (
        "```bash\n# this is a comment, not a heading\nmake build\n\nmake install PREFIX=/opt/widgets\n```"
        in (found["Deploying"])
    )
    rollback = found["Deploying > Rollback"]
    assert rollback.startswith("```\nwidgets rollback --to previous\nwidgets status\n```")
    assert rollback.endswith("Keep the previous release until the new one has served traffic for a day.")


def test_a_nested_list_after_a_wrapped_item_is_a_list_not_code(tmp_path: Path) -> None:
    """An item whose text wraps onto an indented line, a blank, then a list indented four spaces: CommonMark
    reads the indented list as nested in the item, not as an indented code block; a block indented four
    spaces after a paragraph outside any list is still code."""
    page = tmp_path / "cones.md"
    page.write_text(
        "# Cones\n\n* bend: how far the cone bent,\n  measured at the tip.\n\n"
        "    * small cones: bend at the lower heat.\n    * large cones: bend later.\n\n"
        "Read the cones after cooling.\n\n    kiln-read --cones\n",
        encoding="utf-8",
    )
    (text,) = by_location_of(page).values()
    assert "* small cones: bend at the lower heat.\n* large cones: bend later." in text
    assert text.count("```") == 2 and "```\nkiln-read --cones\n```" in text


def test_sibling_sections_of_a_page_that_starts_below_level_one_are_not_nested(tmp_path: Path) -> None:
    page = tmp_path / "kiln-vent.md"
    page.write_text(
        "### Synopsis\n\nkiln-vent open\n\n### Description\n\nOpens the damper.\n\n"
        "### Configuration\n\n#### `delay`\n\nSeconds to wait.\n\n### See also\n\nkiln-fire\n",
        encoding="utf-8",
    )
    sections = sections_of(page, page.read_bytes())
    assert [s.location for s in sections] == ["Synopsis", "Description", "Configuration > `delay`", "See also"]


def test_front_matter_is_the_page_title_and_opening_line_not_text(tmp_path: Path) -> None:
    page = tmp_path / "kiln-vent.md"
    page.write_text(
        "---\ntitle: kiln-vent\nsection: 1\ndescription: 'Open the kiln damper'\n---\n\n"
        "### Description\n\nOpens the damper after a firing.\n",
        encoding="utf-8",
    )
    found = by_location_of(page)
    assert found == {"kiln-vent": "Open the kiln damper", "kiln-vent > Description": "Opens the damper after a firing."}
    assert not any("section: 1" in text or "---" in text for text in found.values())


def by_location_of(path: Path) -> dict[str, str]:
    return {c.location: c.text for c in chunk(sections_of(path, path.read_bytes()))}


def test_rst_literal_blocks_directives_and_doctests() -> None:
    found = by_location("guide.rst")
    assert found["Widgets guide"] == "Install the package first:\n\n```\npip install widgets\nwidgets --version\n```"
    config = found["Widgets guide > Configuration"]
    assert "```toml\n[cache]\nttl_seconds = 300\n```" in config
    assert "Warning: Never point two servers at the same cache directory." in config
    assert "```pycon\n>>> import widgets\n>>> widgets.version()\n'2.0'\n```" in config


def test_sphinx_source_copies_are_read_as_rst(tmp_path: Path) -> None:
    copy = tmp_path / "guide.rst.txt"
    copy.write_bytes((ODD / "guide.rst").read_bytes())
    assert sections_of(copy, copy.read_bytes())[0].location == "Widgets guide"


def test_declared_charset_decodes_and_undeclared_non_utf8_html_reads_as_a_browser_does() -> None:
    declared = ODD / "latin1-declared.html"
    sections = sections_of(declared, declared.read_bytes())
    assert sections[0].location == "Café menu" and "crème brûlée" in sections[0].text
    undeclared = ODD / "latin1-undeclared.html"  # no <meta charset>, Latin-1 bytes: windows-1252, as browsers read it
    sections = sections_of(undeclared, undeclared.read_bytes())
    assert sections[0].location == "Café menu" and "\ufffd" not in sections[0].text


def test_windows_1252_punctuation_in_an_undeclared_page_reads_as_typed(tmp_path: Path) -> None:
    page = tmp_path / "legacy.html"
    said = "Don\u2019t open the lid \u2013 it\u2019s 900\u00b0C \u2026 wait."
    page.write_bytes(f"<html><body><h1>Kiln log</h1><p>{said}</p></body></html>".encode("cp1252"))
    sections = sections_of(page, page.read_bytes())
    assert said in sections[0].text


def test_undeclared_non_utf8_plain_text_is_a_clear_error(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_bytes("# Caf\u00e9\n\nThe caf\u00e9 opens at nine.\n".encode("latin-1"))
    with pytest.raises(InvalidInput, match=r"notes.md: not UTF-8 text \(invalid byte at offset 5\); convert it"):
        sections_of(notes, notes.read_bytes())


def test_unknown_declared_charset_is_named(tmp_path: Path) -> None:
    page = tmp_path / "x.html"
    page.write_bytes(b"<html><head><meta charset='klingon-8'></head><body><p>qapla</p></body></html>")
    with pytest.raises(InvalidInput, match="'klingon-8', which is not a known encoding"):
        sections_of(page, page.read_bytes())


def test_long_code_is_split_into_fenced_pieces_at_line_ends() -> None:
    code = "\n".join(f"    value_{i} = compute({i})  # step {i}" for i in range(120))
    text = f"Setup first.\n\n```python\ndef run():\n{code}\n```\n\nThat is all."
    chunks = chunk([Section(text, "Guide", 0)])
    assert all(len(c.text) <= MAX_CHARS for c in chunks)
    code_chunks = [c.text for c in chunks if "```" in c.text]
    assert len(code_chunks) >= 3
    lines = []
    for piece in code_chunks:
        body = re.search(r"```python\n(.*?)\n```", piece, re.S)
        assert body, piece  # every piece is a whole fenced block
        lines += body.group(1).split("\n")
    assert lines == ["def run():", *code.split("\n")]  # nothing lost, no line cut in two


def test_a_fence_with_blank_lines_is_one_block() -> None:
    text = "Intro words here.\n\n```\na = 1\n\n\nb = 2\n```\n\nOutro words here."
    blocks = blocks_of(text)
    assert [b[2] for b in blocks] == [False, True, False]
    assert blocks[1][1] == "```\na = 1\n\n\nb = 2\n```"


def test_prose_is_packed_and_long_paragraphs_split_at_sentences() -> None:
    sentence = "The repair ship lifted the cable with a grapnel and spliced in a new length. "
    text = "\n\n".join([sentence * 3, sentence * 30, "Short closing remark on the work."])
    chunks = chunk([Section(text, "Repair", 0)])
    assert all(len(c.text) <= MAX_CHARS for c in chunks)
    assert all(c.location == "Repair" for c in chunks)
    assert "\n" not in chunks[0].text.split("\n\n")[0]  # a paragraph stays one line of prose


def test_a_sentence_running_into_code_or_a_run_in_heading_never_ends_a_passage() -> None:
    sentence = "The repair ship lifted the cable with a grapnel and spliced in a new length. "
    lead_in = sentence * 7 + "To test the new length you could run"
    code = "```\nsplice-test --length 40 --report\n```"
    heading = "Splicing at sea"
    text = "\n\n".join([lead_in, code, "and read the report it prints.", sentence * 8, heading, sentence * 6])
    chunks = chunk([Section(text, "Repair", 0)])
    assert all(len(c.text) <= MAX_CHARS for c in chunks)
    for c in chunks[:-1]:
        assert c.text.rstrip().endswith((".", "```")), c.text[-60:]
    with_code = next(c.text for c in chunks if "splice-test" in c.text)
    assert "you could run\n\n```" in with_code  # the sentence and its command stay together
    assert any(heading + "\n\n" + sentence.strip() in c.text for c in chunks)  # the heading goes with its text


def test_identical_paragraphs_are_one_passage_but_short_notes_keep_their_place() -> None:
    paragraph = "Crates from the docks are unchecked cargo: inspect part labels and weights before unpacking anything."
    assert len(paragraph) >= CONTEXT_FREE_CHARS
    chunks = chunk([Section(paragraph, "A", 0), Section(paragraph, "B", 200)])
    assert len(chunks) == 1
    note = "New in version 3.5."
    chunks = chunk([Section(note, "kiln > kiln.vent", 0), Section(note, "glaze > glaze.mix", 50)])
    assert [c.location for c in chunks] == ["kiln > kiln.vent", "glaze > glaze.mix"]
    assert chunks[0].id != chunks[1].id


@pytest.mark.parametrize("word", ["cable ", "ab-"])
def test_an_endless_line_is_cut_into_whole_pieces(word: str) -> None:
    line = "".join(f"{word}{i}" for i in range(4000)).strip()
    chunks = chunk([Section(line, "Log", 0)])
    assert chunks and all(len(c.text) <= MAX_CHARS for c in chunks)
    joiner = " " if " " in word else ""
    assert joiner.join(c.text for c in chunks) == line  # every word kept, none cut in two when there are spaces


def test_markdown_inline_markup_is_read_as_the_text_a_reader_sees(tmp_path: Path) -> None:
    """A link's target, emphasis markers and inline tags are not words of the page; code spans are."""
    page = tmp_path / "kiln-vent.md"
    page.write_text(
        "# Venting the [kiln](/guide/kiln-basics)\n\n"
        "> **Note:** open the damper with `kiln-vent open`, see [the damper\n"
        "guide](/guide/damper-settings#opening) and ![a damper](img/damper.png).\n\n"
        "Press <kbd>Ctrl</kbd>+C to stop, or run `kiln-vent <zone>` for one <zone> only.<br>\n"
        "Read the [safety sheet][sheet] and <https://example.org/vents>; *never* vent __above__ 900 \\*C &amp; up.\n\n"
        "[sheet]: https://example.org/sheets/vent.pdf\n\n"
        "1. Cool down:\n\n"
        "    ```bash\n"
        "    kiln-vent open --zone [all]\n"
        "    ```\n\n"
        "    Wait an hour.\n",
        encoding="utf-8",
    )
    found = by_location_of(page)
    assert list(found) == ["Venting the kiln"]
    text = found["Venting the kiln"]
    assert text.startswith(
        "Note: open the damper with `kiln-vent open`, see the damper guide and a damper.\n\n"
        "Press Ctrl+C to stop, or run `kiln-vent <zone>` for one <zone> only. "
        "Read the safety sheet and https://example.org/vents; never vent above 900 *C & up."
    )
    assert "```bash\nkiln-vent open --zone [all]\n```" in text  # code inside a list item stays code, brackets and all
    assert text.endswith("Wait an hour.")  # the item's text after its code is prose, not an indented code block
    assert not any(mark in text for mark in ("](", "**", "__", "<kbd>", "<br>", "[sheet]", "sheets/vent.pdf"))


@pytest.mark.parametrize(
    "page",
    [
        "[" * 20000 + "x" + "](" * 8000,  # brackets that never close into a link
        "*a " * 20000,  # emphasis markers that never pair
        "<a" * 20000,  # tag openings that never close
        "[" * 3000 + "link" + "]" * 3000 + "(u)",  # a link nested thousands deep
    ],
)
def test_a_pathological_markdown_page_is_read_as_text(page: str, tmp_path: Path) -> None:
    """Markup that never resolves stays text, and the page is one section, not an error."""
    path = tmp_path / "odd.md"
    path.write_text(page)
    (section,) = sections_of(path, path.read_bytes())
    assert section.text.strip() and set(section.text.replace(" ", "")) <= set(page.replace(" ", ""))
