"""Claims: sentences with their code, support by a passage, and near-duplicates."""

from __future__ import annotations

from deepr_mcp.research.synthesis.claims import SUPPORT_THRESHOLD, code_in, normalise, same_claim, support, units

PASSAGE = (
    "How to extract an entire tar archive to the current working directory:\n\n"
    '```python\nimport tarfile\ntar = tarfile.open("sample.tar.gz")\ntar.extractall()\n```\n\n'
    "Never extract archives that strangers send before you look inside them. It is possible that files are "
    "created outside the target path, e.g. members that have absolute names that begin with \u201c/\u201d."
)


def test_code_blocks_belong_to_the_sentence_that_introduces_them() -> None:
    found = units(PASSAGE)
    assert found[0].text.startswith("How to extract an entire tar archive")
    assert found[0].code == 'import tarfile\ntar = tarfile.open("sample.tar.gz")\ntar.extractall()'
    assert [u.text.split()[0] for u in found[1:]] == ["Never", "It"]
    assert all(u.code is None for u in found[1:])


def test_support_is_containment_or_near_total_term_coverage() -> None:
    assert support("Never extract archives that strangers send before you look inside them.", PASSAGE) == 1.0
    assert support('members that have absolute names that begin with "/"', PASSAGE) == 1.0  # quotes normalised
    paraphrase = "Archives that strangers send should never be extracted before you look inside them."
    assert support(paraphrase, PASSAGE) >= 0.8
    assert support("Zip files are always safe to open.", PASSAGE) < SUPPORT_THRESHOLD
    assert code_in("tar = tarfile.open('x')", PASSAGE) is False
    assert code_in("tar.extractall()", PASSAGE)


def test_near_duplicates_are_one_claim() -> None:
    a = "Never extract archives that strangers send before you look inside them."
    assert same_claim(a, "never extract archives that strangers send before you look inside them")
    assert same_claim(a, "Warning: never extract archives that strangers send before you look inside them first.")
    assert not same_claim(a, "The tarfile module makes it possible to read and write tar archives.")
    assert normalise("``Foo``  \u2019bar\u2019 **baz**") == "foo 'bar' baz"


def test_adds_nothing_is_one_way() -> None:
    from deepr_mcp.research.synthesis.claims import adds_nothing

    short = "The walrus operator := assigns a variable in an expression."
    longer = (
        "A new syntax := exists that assigns values to variables inside a larger expression. "
        "It is fondly known as the walrus operator."
    )
    assert same_claim(short, longer)  # the symmetric test calls them one claim...
    assert not adds_nothing(longer, short)  # ...but the longer one says more, so it is kept
    assert adds_nothing(short, longer)
    assert adds_nothing("Unpickle only data you trust.", "unpickle only the data you trust")


WHATS_NEW = (
    "- Unicode strings now use faster code for detecting whitespace. "
    "Memory usage is reduced by using pymalloc for the Unicode string\u2019s data.\n"
    "- The `with` statement now stores the `__exit__()` method on the stack, producing a small speedup.\n"
    "- To reduce memory usage, the garbage collector will now clear internal free lists when "
    "garbage-collecting the highest generation of objects."
)
COPY = (
    "The difference between shallow and deep copying is matters only for compound objects (objects that "
    "contain other objects, like lists or class instances):\n\n"
    "- A shallow copy builds a new compound object and then (to the extent possible) inserts references "
    "into it to the objects found in the original.\n"
    "- A deep copy builds a new compound object and then, recursively, inserts copies into it of the "
    "objects found in the original."
)


def test_list_items_that_are_sentences_are_claims_of_their_own() -> None:
    found = [u.text for u in units(WHATS_NEW)]
    assert found == [
        "Unicode strings now use faster code for detecting whitespace.",
        "Memory usage is reduced by using pymalloc for the Unicode string\u2019s data.",
        "The `with` statement now stores the `__exit__()` method on the stack, producing a small speedup.",
        "To reduce memory usage, the garbage collector will now clear internal free lists when "
        "garbage-collecting the highest generation of objects.",
    ]
    assert not any("- " in text for text in found)


def test_an_introduction_before_sentence_items_becomes_a_statement() -> None:
    found = [u.text for u in units(COPY)]
    assert found[0].endswith("like lists or class instances).")  # no dangling colon
    assert found[1].startswith("A shallow copy builds") and found[2].startswith("A deep copy builds")


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

    intro, shallow, deep = [u.text for u in units(COPY)]
    assert different_subjects(shallow, deep) and contrasts(shallow, deep)
    assert not same_claim(shallow, deep) and not adds_nothing(deep, shallow)
    # a merged claim holding the intro and one half still does not say the other half
    assert not adds_nothing(deep, f"{intro} {shallow}")
    assert adds_nothing(shallow, f"{intro} {shallow}")
    # a reworded statement names the other's subject: still the same claim
    assert not different_subjects(
        "Never extract archives that strangers send before you look inside them.",
        "Archives that strangers send should never be extracted before you look inside them.",
    )
    assert not different_subjects("Note: The extract() method is unsafe.", "The extract() method is unsafe.")
    assert not contrasts("A shallow copy is cheap.", "The tarfile module reads tar archives.")


def test_a_long_list_of_entries_is_separate_notes_and_a_short_one_is_one_claim() -> None:
    notes = "The following modules have specific security considerations:\n\n" + "\n".join(
        f"- `{name}`: {text}"
        for name, text in [
            ("hashlib", "all constructors take a usedforsecurity keyword-only argument disabling insecure algorithms"),
            ("logging", "Logging configuration uses eval()"),
            ("pickle", "Restricting globals in pickle"),
            ("shelve", "shelve is based on pickle and thus unsuitable for dealing with untrusted sources"),
            ("tempfile", "mktemp is deprecated due to vulnerability to race conditions"),
            ("zipfile", "maliciously prepared .zip files can cause disk volume exhaustion"),
        ]
    )
    found = [u.text for u in units(notes)]
    assert "`tempfile`: mktemp is deprecated due to vulnerability to race conditions" in found
    ways = (
        "Tuples may be constructed in a number of ways:\n\n- Using a pair of parentheses to denote the empty "
        "tuple: `()`\n- Using a trailing comma for a singleton tuple: `a,` or `(a,)`\n\nNote that it is the comma."
    )
    assert [u.text for u in units(ways)] == [
        "Tuples may be constructed in a number of ways: Using a pair of parentheses to denote the empty tuple: `()` "
        "Using a trailing comma for a singleton tuple: `a,` or `(a,)`",
        "Note that it is the comma.",
    ]


def test_an_enumeration_run_into_a_paragraph_loses_its_numbers() -> None:
    prose = (
        "Generally, there are three circumstances where identity is guaranteed. "
        "1) Assignments create new names but do not change object identity. "
        "2) Putting an object in a container does not change object identity. "
        "(3) Singletons are unique."
    )
    texts = [u.text for u in units(prose)]
    assert texts[1:] == [
        "Assignments create new names but do not change object identity.",
        "Putting an object in a container does not change object identity.",
        "Singletons are unique.",
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
