"""Claims: sentences with their code, support by a passage, and near-duplicates."""

from __future__ import annotations

from deepr_mcp.research.synthesis.claims import SUPPORT_THRESHOLD, code_in, normalise, same_claim, support, units

PASSAGE = (
    "How to unpack an entire cargo crate onto the loading bay floor:\n\n"
    '```python\nimport cratebox\ncrate = cratebox.open("sample.crate")\ncrate.unpack_all()\n```\n\n'
    "Never unpack crates that strangers send before you look inside them. It is possible that parts are "
    "dropped outside the loading bay, e.g. parts that have loose lids that open with a \u201cpop\u201d."
)


def test_code_blocks_belong_to_the_sentence_that_introduces_them() -> None:
    found = units(PASSAGE)
    assert found[0].text.startswith("How to unpack an entire cargo crate")
    assert found[0].code == 'import cratebox\ncrate = cratebox.open("sample.crate")\ncrate.unpack_all()'
    assert [u.text.split()[0] for u in found[1:]] == ["Never", "It"]
    assert all(u.code is None for u in found[1:])


def test_support_is_containment_or_near_total_term_coverage() -> None:
    assert support("Never unpack crates that strangers send before you look inside them.", PASSAGE) == 1.0
    assert support('parts that have loose lids that open with a "pop"', PASSAGE) == 1.0  # quotes normalised
    paraphrase = "Crates that strangers send should never be unpacked before you look inside them."
    assert support(paraphrase, PASSAGE) >= 0.8
    assert support("Cardboard boxes are always safe to open.", PASSAGE) < SUPPORT_THRESHOLD
    assert code_in("crate = cratebox.open('x')", PASSAGE) is False
    assert code_in("crate.unpack_all()", PASSAGE)


def test_near_duplicates_are_one_claim() -> None:
    a = "Never unpack crates that strangers send before you look inside them."
    assert same_claim(a, "never unpack crates that strangers send before you look inside them")
    assert same_claim(a, "Warning: never unpack crates that strangers send before you look inside them first.")
    assert not same_claim(a, "The cratebox module makes it possible to read and write cargo crates.")
    assert normalise("``Foo``  \u2019bar\u2019 **baz**") == "foo 'bar' baz"


def test_adds_nothing_is_one_way() -> None:
    from deepr_mcp.research.synthesis.claims import adds_nothing

    short = "The heron ramp ~> cools a kiln in slow steps."
    longer = (
        "A new program ~> exists that cools each kiln in slow steps inside a longer firing. "
        "It is fondly known as the heron ramp."
    )
    assert same_claim(short, longer)  # the symmetric test calls them one claim...
    assert not adds_nothing(longer, short)  # ...but the longer one says more, so it is kept
    assert adds_nothing(short, longer)
    assert adds_nothing("Unwind only yarn you trust.", "unwind only the yarn you trust")


WHATS_NEW = (
    "- Glaze recipes now use faster code for weighing silica. "
    "Water usage is reduced by using a sprayer for the glaze bucket\u2019s top layer.\n"
    "- The `fire` command now stores the `cone()` value on the controller, producing a small saving.\n"
    "- To reduce electricity usage, the kiln controller will now skip internal soak steps when "
    "bisque-firing the lowest cone of wares."
)
COATS = (
    "The difference between thin and thick coating is matters only for porous bodies (bodies that "
    "absorb water, like earthenware or raku):\n\n"
    "- A thin coat covers the bisque pot and then (to the extent possible) lets the clay body show "
    "through it at the edges of the rim.\n"
    "- A thick coat covers the bisque pot and then, layer by layer, hides the clay body under it at the "
    "edges of the rim."
)


def test_list_items_that_are_sentences_are_claims_of_their_own() -> None:
    found = [u.text for u in units(WHATS_NEW)]
    assert found == [
        "Glaze recipes now use faster code for weighing silica.",
        "Water usage is reduced by using a sprayer for the glaze bucket\u2019s top layer.",
        "The `fire` command now stores the `cone()` value on the controller, producing a small saving.",
        "To reduce electricity usage, the kiln controller will now skip internal soak steps when "
        "bisque-firing the lowest cone of wares.",
    ]
    assert not any("- " in text for text in found)


def test_an_introduction_before_sentence_items_becomes_a_statement() -> None:
    found = [u.text for u in units(COATS)]
    assert found[0].endswith("like earthenware or raku).")  # no dangling colon
    assert found[1].startswith("A thin coat covers") and found[2].startswith("A thick coat covers")


def test_fragment_items_complete_their_sentence_and_announcements_keep_their_colon() -> None:
    fragments = "It is called with both these conditions met:\n\n- on a bytecode boundary;\n- with the lock held."
    assert [u.text for u in units(fragments)] == [
        "It is called with both these conditions met: on a bytecode boundary; with the lock held."
    ]
    announced = "The module defines the following functions:\n\n- `f()` Does one thing.\n- `g()` Does another."
    assert units(announced)[0].text.endswith("the following functions:")
    numbered = "Steps:\n1. Create the environment.\n2. Activate it."
    assert [u.text for u in units(numbered)][1:] == ["Create the environment.", "Activate it."]


def test_sentences_about_different_subjects_are_no_duplicates() -> None:
    from deepr_mcp.research.synthesis.claims import adds_nothing, contrasts, different_subjects

    intro, thin, thick = [u.text for u in units(COATS)]
    assert different_subjects(thin, thick) and contrasts(thin, thick)
    assert not same_claim(thin, thick) and not adds_nothing(thick, thin)
    # a merged claim holding the intro and one half still does not say the other half
    assert not adds_nothing(thick, f"{intro} {thin}")
    assert adds_nothing(thin, f"{intro} {thin}")
    # a reworded statement names the other's subject: still the same claim
    assert not different_subjects(
        "Never unpack crates that strangers send before you look inside them.",
        "Crates that strangers send should never be unpacked before you look inside them.",
    )
    assert not different_subjects("Note: The unpack() method is unsafe.", "The unpack() method is unsafe.")
    assert not contrasts("A thin coat is cheap.", "The cratebox module reads cargo crates.")


def test_a_long_list_of_entries_is_separate_notes_and_a_short_one_is_one_claim() -> None:
    notes = "The following kilns have specific safety considerations:\n\n" + "\n".join(
        f"- `{name}`: {text}"
        for name, text in [
            ("electric", "all models take a lockout key as a keyword-only switch disabling unsafe programs"),
            ("gas", "Gas configuration uses a manual valve"),
            ("raku", "Restricting fuel in raku"),
            ("pit", "pit firing is based on raku and thus unsuitable for dealing with windy sites"),
            ("salt", "salt glazing is deprecated due to vulnerability to chlorine fumes"),
            ("wood", "badly stacked firewood can cause the firebox to collapse"),
        ]
    )
    found = [u.text for u in units(notes)]
    assert "`salt`: salt glazing is deprecated due to vulnerability to chlorine fumes" in found
    ways = (
        "Cone packs may be set in a number of ways:\n\n- Using a pad of clay to hold the empty "
        "pack: `[]`\n- Using a trailing coil for a single cone: `c6,` or `(c6,)`\n\nNote that it is the coil."
    )
    assert [u.text for u in units(ways)] == [
        "Cone packs may be set in a number of ways: Using a pad of clay to hold the empty pack: `[]` "
        "Using a trailing coil for a single cone: `c6,` or `(c6,)`",
        "Note that it is the coil.",
    ]


def test_an_enumeration_run_into_a_paragraph_loses_its_numbers() -> None:
    prose = (
        "Generally, there are three circumstances where a glaze keeps its colour. "
        "1) Refiring adds a new coat but does not change the glaze colour. "
        "2) Putting a pot on a higher shelf does not change the glaze colour. "
        "(3) Celadons are unique."
    )
    texts = [u.text for u in units(prose)]
    assert texts[1:] == [
        "Refiring adds a new coat but does not change the glaze colour.",
        "Putting a pot on a higher shelf does not change the glaze colour.",
        "Celadons are unique.",
    ]
    assert all(support(t, prose) >= SUPPORT_THRESHOLD for t in texts)  # still found in its passage


def test_a_short_claim_cites_the_passage_that_says_it_not_every_one_sharing_its_words() -> None:
    from deepr_mcp.research.passage import Passage
    from deepr_mcp.research.synthesis.verify import verify_findings

    texts = [
        "The damper opens by itself at the end of a firing; kilnctl vent is rarely needed.",
        "kilnctl vent opens the damper. Venting lets the fumes out.",
        "Before a glaze firing, open the damper with kilnctl vent and close it at red heat.",
        "kilnctl logs every firing; the vent command that opens the damper is logged too.",
    ]
    hits = [Passage(f"p{i}", text, "kiln.md", f"Kiln > Part {i}", 1.0) for i, text in enumerate(texts)]
    claim = "kilnctl vent opens the damper."
    checked = verify_findings([(claim, [1, 2, 3, 4], None)], hits, {"kilnctl", "vent"})
    assert [f.passage_ids for f in checked.findings] == [["p1"]]  # the one that says it, whatever the model cited
    paraphrase = "kilnctl vent opens the damper to let the fumes out."  # quoted by none: the most of it
    checked = verify_findings([(paraphrase, [4], None)], hits, {"kilnctl", "vent"})
    assert [f.passage_ids for f in checked.findings] == [["p1"]]


def test_a_one_line_example_inside_a_sentence_reads_inline() -> None:
    from deepr_mcp.research.synthesis.claims import units

    text = (
        "For example\n\n```\nkilnctl vent --slow 3\n```\n\nopens the vent in three slow steps. "
        "The vent closes itself at night. To read the log:\n\n```\nkilnctl log\nkilnctl log --all\n```\n\n"
        "prints the firings.\n\nA cone pack is:\n\n```\ncone 06\n```\n\nThe pack bends."
    )
    found = units(text)
    assert found[0].text == "For example `kilnctl vent --slow 3` opens the vent in three slow steps."
    assert found[0].code is None
    assert found[1].text == "The vent closes itself at night."
    # two lines stay a block
    assert found[2].text == "To read the log:" and found[2].code == "kilnctl log\nkilnctl log --all"
    assert found[3].text == "prints the firings."
    assert found[4].code == "cone 06" and found[5].text == "The pack bends."  # a new sentence is no continuation
    assert [u.index for u in found] == list(range(len(found)))


def test_an_inline_example_is_a_finding_the_passage_supports() -> None:
    from tests.research.requests import local_findings

    passage = "For example\n\n```\nkilnctl vent --slow 3\n```\n\nopens the kiln vent in three slow steps."
    found = local_findings("How do I open the kiln vent slowly?", [(1, "kiln.md, Venting", passage)])
    assert found == "- For example `kilnctl vent --slow 3` opens the kiln vent in three slow steps. [1]"


def test_a_spaced_range_of_two_dots_is_no_sentence_end() -> None:
    from deepr_mcp.research.synthesis.claims import units

    found = units("Shelves are numbered `1` .. `N` from the floor. The top shelf runs hot. Then... Cool it.")
    assert [u.text for u in found] == [
        "Shelves are numbered `1` .. `N` from the floor.",
        "The top shelf runs hot.",
        "Then...",
        "Cool it.",
    ]
