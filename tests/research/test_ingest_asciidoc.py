"""AsciiDoc sources read as a reader sees the rendered page: headings as locations, code as code, markup as words."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest import NotContent, chunk, sections_of
from tests.clients import call, connect


def read(tmp_path: Path, source: str, name: str = "kiln.adoc") -> dict[str, str]:
    """Location to section text of an AsciiDoc document written to ``name``."""
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return {s.location: s.text for s in sections_of(path, path.read_bytes())}


def test_section_titles_of_both_styles_make_the_heading_path(tmp_path: Path) -> None:
    modern = read(
        tmp_path,
        "= Kiln Guide\nJane Maker <jane@example.org>\nv2.1, 2026-01-05\n:toc:\n\nThe kiln fires clay.\n\n"
        "== Firing\n\nRamp slowly.\n\n=== Bisque\n\nFirst firing.\n\n== Cooling ==\n\nWait a day.\n\n"
        "## Venting\n\nOpen the damper.\n",
    )
    assert modern == {
        "Kiln Guide": "The kiln fires clay.",  # the author and revision lines are the header, not text
        "Kiln Guide > Firing": "Ramp slowly.",
        "Kiln Guide > Firing > Bisque": "First firing.",
        "Kiln Guide > Cooling": "Wait a day.",  # symmetric markers are no part of the title
        "Kiln Guide > Venting": "Open the damper.",  # Markdown's '#' headings, which AsciiDoc accepts
    }
    legacy = read(
        tmp_path,
        "Kiln Guide\n==========\n\nThe kiln fires clay.\n\nFiring\n------\n\nRamp slowly.\n\n"
        "Bisque\n~~~~~~~\n\nFirst firing.\n\nCooling\n-------\n\nWait a day.\n",
        "legacy.asciidoc",
    )
    assert legacy == {
        "Kiln Guide": "The kiln fires clay.",
        "Kiln Guide > Firing": "Ramp slowly.",
        "Kiln Guide > Firing > Bisque": "First firing.",  # an underline one longer than its title
        "Kiln Guide > Cooling": "Wait a day.",
    }


def test_listing_literal_and_indented_blocks_are_code_kept_literally(tmp_path: Path) -> None:
    found = read(
        tmp_path,
        "= Kiln\n:temp: 1280\n\n== Setup\n\n.Install it\n[source,python]\n----\n"
        "def fire(*args, **kwargs):\n    # == not a heading\n    // not a comment\n    return _ramp_(args) + {temp}\n"
        "----\n\n....\nliteral *text* with a_b_c\n....\n\n  $ kilnctl status\n  ok\n\n"
        "```sh\nkilnctl start --ramp=150\n```\n\n[source,toml,subs=attributes+]\n----\nmax = {temp}\n----\n",
    )
    assert found["Kiln > Setup"] == (
        "Install it\n\n"
        "```python\ndef fire(*args, **kwargs):\n    # == not a heading\n    // not a comment\n"
        "    return _ramp_(args) + {temp}\n```\n\n"
        "```\nliteral *text* with a_b_c\n```\n\n"
        "```\n$ kilnctl status\nok\n```\n\n"
        "```sh\nkilnctl start --ramp=150\n```\n\n"
        "```toml\nmax = 1280\n```"
    )
    passages = chunk(sections_of(tmp_path / "kiln.adoc", (tmp_path / "kiln.adoc").read_bytes()))
    assert any("```python\ndef fire(*args, **kwargs):\n" in p.text for p in passages)


def test_admonitions_keep_their_label_as_the_opening_word(tmp_path: Path) -> None:
    found = read(
        tmp_path,
        "= Kiln\n\nWARNING: Never open the lid above 600 degrees.\n\n"
        "[CAUTION]\n====\nThe elements stay hot\nfor hours.\n\n* wear gloves\n====\n\n"
        "[NOTE]\nVent the room.\n\nTIP:no space, so no admonition.\n",
    )
    assert found["Kiln"] == (
        "Warning: Never open the lid above 600 degrees.\n\n"
        "Caution: The elements stay hot\nfor hours.\n\n- wear gloves\n\n"
        "Note: Vent the room.\n\nTIP:no space, so no admonition."
    )
    texts = [p.text for p in chunk(sections_of(tmp_path / "kiln.adoc", (tmp_path / "kiln.adoc").read_bytes()))]
    assert "Caution: The elements stay hot for hours." in "\n".join(texts)


def test_inline_markup_is_read_as_its_words_without_gluing_them(tmp_path: Path) -> None:
    found = read(
        tmp_path,
        "= Kiln\n\nThe *relay* drives _both_ elements, `kiln.fire(a--b, *c*)` starts it, +*not bold*+ stays, "
        "#marked# text, H~2~O and 2^10^, **Kiln**Ctl, [.role]#styled# words, "
        "snake_case_name and 5 * 3 * 2 stay, (C) 2026 Maker--Works -- all rights, --ramp stays, "
        'kbd:[Ctrl+T], btn:[Save], menu:File[Export > PDF], "`quoted`", a\\*literal* star,\n'
        "a hard +\nbreak.\n",
    )
    assert found["Kiln"] == (
        "The relay drives both elements, `kiln.fire(a--b, *c*)` starts it, *not bold* stays, "
        "marked text, H2O and 210, KilnCtl, styled words, "
        "snake_case_name and 5 * 3 * 2 stay, \u00a9 2026 Maker\u2014Works \u2014 all rights, --ramp stays, "
        'Ctrl+T, Save, File > Export > PDF, "quoted", a*literal* star,\n'
        "a hard\nbreak."
    )


def test_links_read_by_their_text_and_cross_references_by_their_title(tmp_path: Path) -> None:
    found = read(
        tmp_path,
        "= Kiln\n\nSee https://example.org/kiln[the kiln site^], link:docs/ramp.html[the ramp\npage], "
        "link:https://example.org/vent[the vent page], link:https://example.org/fan[], "
        "xref:install.adoc#_proxy_settings[], <<safety,the safety\nrules>>, <<_cooling_down>>, "
        "mailto:jane@example.org[Jane], https://example.org/a_b_c and <https://example.org/x>.\n\n"
        "image::kiln.png[A kiln at full heat,300,200]\n\nAn image:icon.png[] icon and image:dial.png[the dial].\n\n"
        "[[safety]]\n== Safety\n\nKeep clear.\n\n== Cooling *down*\n\nWait.\n",
    )
    assert found["Kiln"] == (
        "See the kiln site, the ramp\npage, the vent page, https://example.org/fan, proxy settings, "
        "the safety\nrules, Cooling down, "
        "Jane, https://example.org/a_b_c and https://example.org/x.\n\n"
        "A kiln at full heat\n\nAn icon and the dial."
    )


def test_attributes_are_resolved_where_the_document_defines_them(tmp_path: Path) -> None:
    found = read(
        tmp_path,
        "= {product} Guide\n:product: KilnCtl\n:version: 2.1\n:full: {product} {version}\n"
        ":url-docs: https://example.org/docs\n:legacy!:\n:motto: fire and \\\n  ice\n\n"
        "{full} reads schedules; see {url-docs}[the docs] and {url-api}/kiln/{v}/Ramp.html#rate[the ramp API].\n"
        "{undefined} stays, \\{product} is literal,\n"
        "{nbsp}and a `{version}` code span is filled in too.\n\n"
        "ifdef::product[]\nShown: product is set.\nendif::[]\n\n"
        "ifdef::env-github[]\nOnly on GitHub.\nendif::[]\n\n"
        "ifndef::env-github[Not on GitHub.]\n\n"
        ":version: 3.0\n\nNow {version}, {motto}.\n",
    )
    assert list(found) == ["{product} Guide"]  # an attribute used before it is defined stays a reference
    assert found["{product} Guide"] == (
        "KilnCtl 2.1 reads schedules; see the docs and the ramp API.\n{undefined} stays, {product} is literal,\n"
        "and a `2.1` code span is filled in too.\n\n"
        "Shown: product is set.\n\nNot on GitHub.\n\nNow 3.0, fire and ice."
    )


def test_comments_includes_and_attribute_entries_are_not_text(tmp_path: Path) -> None:
    found = read(
        tmp_path,
        "= Kiln\n// a line comment\n\nFirst line\n// a comment inside a paragraph\nsecond line.\n\n"
        "////\nA block comment\n\n== Not a section\n////\n\n[comment]\nA comment paragraph.\n\n"
        "include::partials/shared.adoc[]\n:icons: font\n\n'''\n\n<<<\n\n"
        "[comment]\n--\nA commented open block.\n--\n\n"
        '++++\n<div class="x">Raw <b>words</b></div>\n<script>var x;</script>\n++++\n\n'
        "--\nAn open block.\n--\n\n> A quoted\n> line.\n\nLast.\n",
    )
    assert found == {"Kiln": "First line\nsecond line.\n\nRaw words\n\nAn open block.\n\nA quoted\nline.\n\nLast."}


def test_tables_are_rows_of_cells(tmp_path: Path) -> None:
    found = read(
        tmp_path,
        '= Kiln\n\n.Settings\n[cols="1,1,2",options=header]\n|===\n| Name | Default | Meaning\n\n'
        "| `max_temp`\n| 1280\n| The *highest* temperature\n\n| ramp | 150 | Degrees \\| hour\n"
        '2+| spans two | last\n|===\n\n,===\nglaze,cone,colour\nceladon,10,"green, pale"\n,===\n',
    )
    assert found["Kiln"] == (
        "Settings\n\n"
        "Name | Default | Meaning\n`max_temp` | 1280 | The highest temperature\n"
        "ramp | 150 | Degrees | hour\nspans two | last\n\n"
        "glaze | cone | colour\nceladon | 10 | green, pale"
    )
    passages = chunk(sections_of(tmp_path / "kiln.adoc", (tmp_path / "kiln.adoc").read_bytes()))
    assert "Name | Default | Meaning\n`max_temp` | 1280 | The highest temperature" in passages[0].text


def test_lists_description_lists_and_continuations(tmp_path: Path) -> None:
    found = read(
        tmp_path,
        "= Kiln\n\n* Load the *kiln*\n  with care\n** check shelves\n* Close the lid\n\n//\n\n"
        ". Switch on\n. Set the ramp\n+\n[source,sh]\n----\nkilnctl ramp 150\n----\n. Wait\n\n"
        "CPU:: The board's brain.\nRelay;; Switches the *elements*.\n"
        "Thermocouple::\n  Measures heat\n  in the chamber.\n"
        "Is it safe?:: Yes.\n",
    )
    assert found["Kiln"] == (
        "- Load the kiln with care\n  - check shelves\n- Close the lid\n\n"
        "1. Switch on\n2. Set the ramp\n\n```sh\nkilnctl ramp 150\n```\n\n3. Wait\n\n"
        "CPU: The board's brain.\n\nRelay: Switches the elements.\n\nThermocouple: Measures heat in the chamber.\n\n"
        "Is it safe? Yes."
    )


HOSTILE = {
    "stars": "*" * 100_000 + "a",
    "emphasis": " *a _b #c `d +e ^f ~g" * 20_000,
    "nested-examples": "\n".join("=" * (4 + k) for k in range(3_000)) + "\nwords inside them\n",
    "nested-admonitions": "".join(f"[NOTE]\n{'=' * (4 + k)}\n" for k in range(3_000)) + "words inside them\n",
    "unterminated-listing": "= T\n\n----\n" + "code line\n" * 20_000,
    "unterminated-comment": "before\n\n////\n" + "hidden\n" * 1_000,
    "brackets": "[" * 100_000 + "]" * 100_000,
    "xrefs": "<<a," * 100_000,
    "macros": "pass:[link:x[image:y[" * 30_000,
    "table": "|===\n" + "2+|" * 50_000 + "\n|===\n",
    "headings": "\n".join(f"{'=' * (1 + k % 6)} h{k}" for k in range(20_000)),
    "description": "a:: " * 100_000,
    "attributes": ":a: {b}\n:b: {a}\n" + "{a}{b}" * 50_000,
    "continued-attribute": ":long: start \\\n" + "more words \\\n" * 50_000 + "end\n\n{long}\n",
    "conditionals": "ifdef::x[]\n" * 10_000 + "text\n" + "endif::[]\n" * 20_000,
    "long-line": "word *bold* _it_ `code` link:x[y] https://e.org/a_b " * 30_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_is_text_or_a_clear_error_in_bounded_time(tmp_path: Path, name: str) -> None:
    """Built to nest, backtrack or never close: each is read (none of these is a reason to refuse a file);
    the join is a hang guard, not a timing."""
    path = tmp_path / f"{name}.adoc"
    path.write_text(HOSTILE[name], encoding="utf-8")
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["passages"] = chunk(sections_of(path, path.read_bytes()))
        except InvalidInput as exc:
            outcome["error"] = exc.message

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive(), f"{name}: ingest did not finish"
    assert "passages" in outcome, outcome.get("error")
    texts = [p.text for p in outcome["passages"]]  # type: ignore[attr-defined]
    if name.startswith("nested-"):  # three thousand blocks deep, the text inside is still text
        assert texts == ["Note: words inside them" if "admonitions" in name else "words inside them"]
    if name == "unterminated-listing":  # the block runs to the end of the file, as code
        assert texts and all(t.startswith("```\ncode line") and t.endswith("code line\n```") for t in texts)
    if name == "unterminated-comment":
        assert texts == []
    if name == "long-line":
        assert texts[0].startswith("word bold it `code` y https://e.org/a_b word bold")


def test_an_armored_pgp_key_named_asc_is_skipped_not_read(tmp_path: Path) -> None:
    key = tmp_path / "release.tar.gz.asc"
    key.write_text("-----BEGIN PGP SIGNATURE-----\n\niQIzBAABCAAdFiEE\n=abcd\n-----END PGP SIGNATURE-----\n")
    with pytest.raises(NotContent, match="OpenPGP"):
        sections_of(key, key.read_bytes())
    notes = tmp_path / "notes.asc"
    notes.write_text("Kiln notes\n==========\n\nThe kiln fires clay.\n")
    assert [(s.location, s.text) for s in sections_of(notes, notes.read_bytes())] == [
        ("Kiln notes", "The kiln fires clay.")
    ]


async def test_an_asciidoc_document_added_over_mcp_is_searchable_and_its_code_intact(
    empty_data_dir: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kiln.adoc").write_text(
        "= Kiln Controller\n:product: KilnCtl\n\n== Venting the chamber\n\n"
        "{product} opens the *damper* when the _thermocouple_ reads above the vent threshold.\n\n"
        "[source,python]\n----\nif reading > threshold:\n    damper.open(*ports, **{'fast': True})\n----\n",
        encoding="utf-8",
    )
    async with connect("inproc", "legacy", empty_data_dir) as client:
        added = await call(client, "corpus_add", {"path": str(docs)})
        assert added["added"] == 1 and added["failed"] == []
        hits = (await call(client, "corpus_search", {"query": "KilnCtl damper thermocouple vent threshold"}))["hits"]
        assert hits and hits[0]["source"] == "kiln.adoc"
        assert hits[0]["location"] == "Kiln Controller > Venting the chamber"
        assert "KilnCtl opens the damper when the thermocouple reads above the vent threshold." in hits[0]["text"]
        assert "```python\nif reading > threshold:\n    damper.open(*ports, **{'fast': True})\n```" in hits[0]["text"]


def test_a_closing_delimiter_ends_everything_opened_inside_its_block(tmp_path: Path) -> None:
    """Asciidoctor cuts a block's body at its closing line before reading it: an indented literal right
    above ``--``, or a listing left open inside ``====``, cannot swallow the close and what follows."""
    found = read(
        tmp_path,
        "= Kiln\n\n. Load it\n+\n--\n  kilnctl load\n--\n\n== Firing\n\nRamp up.\n\n"
        "====\n----\nkilnctl fire\n====\n\n== Cooling\n\nWait.\n",
    )
    assert found == {
        "Kiln": "1. Load it\n\n```\nkilnctl load\n```",
        "Kiln > Firing": "Ramp up.\n\n```\nkilnctl fire\n```",
        "Kiln > Cooling": "Wait.",
    }


def test_a_navigation_file_of_cross_references_is_skipped_and_a_see_also_list_is_kept(tmp_path: Path) -> None:
    nav = tmp_path / "nav.adoc"
    nav.write_text(
        ".Kiln\n* xref:index.adoc[]\n** Firing\n*** xref:firing.adoc[Firing the kiln]\n*** xref:cooling.adoc[]\n"
        "*** xref:glazes.adoc[Glazes and their cones]\n* <<vents,Vents and dampers>>\n"
    )
    with pytest.raises(NotContent, match="navigation"):
        sections_of(nav, nav.read_bytes())
    found = read(
        tmp_path, "= Kiln\n\nThe kiln fires clay.\n\n* xref:firing.adoc[]\n* xref:cooling.adoc[]\n* <<vents>>\n"
    )
    assert found == {"Kiln": "The kiln fires clay.\n\n- firing\n- cooling\n- vents"}
