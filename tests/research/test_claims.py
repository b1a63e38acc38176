"""Claims: sentences with their code, support by a passage, and near-duplicates."""

from __future__ import annotations

from deepr_mcp.research.claims import SUPPORT_THRESHOLD, code_in, normalise, same_claim, support, units

PASSAGE = (
    "How to extract an entire tar archive to the current working directory:\n\n"
    '```python\nimport tarfile\ntar = tarfile.open("sample.tar.gz")\ntar.extractall()\n```\n\n'
    "Never extract archives from untrusted sources without prior inspection. It is possible that files are "
    "created outside of path, e.g. members that have absolute filenames starting with \u201c/\u201d."
)


def test_code_blocks_belong_to_the_sentence_that_introduces_them() -> None:
    found = units(PASSAGE)
    assert found[0].text.startswith("How to extract an entire tar archive")
    assert found[0].code == 'import tarfile\ntar = tarfile.open("sample.tar.gz")\ntar.extractall()'
    assert [u.text.split()[0] for u in found[1:]] == ["Never", "It"]
    assert all(u.code is None for u in found[1:])


def test_support_is_containment_or_near_total_term_coverage() -> None:
    assert support("Never extract archives from untrusted sources without prior inspection.", PASSAGE) == 1.0
    assert support('members that have absolute filenames starting with "/"', PASSAGE) == 1.0  # quotes normalised
    assert support("Archives from untrusted sources should never be extracted without inspection.", PASSAGE) >= 0.8
    assert support("Zip files are always safe to open.", PASSAGE) < SUPPORT_THRESHOLD
    assert code_in("tar = tarfile.open('x')", PASSAGE) is False
    assert code_in("tar.extractall()", PASSAGE)


def test_near_duplicates_are_one_claim() -> None:
    a = "Never extract archives from untrusted sources without prior inspection."
    assert same_claim(a, "never extract archives from untrusted sources without prior inspection")
    assert same_claim(a, "Warning: never extract archives from untrusted sources without prior inspection first.")
    assert not same_claim(a, "The tarfile module makes it possible to read and write tar archives.")
    assert normalise("``Foo``  \u2019bar\u2019 **baz**") == "foo 'bar' baz"


def test_adds_nothing_is_one_way() -> None:
    from deepr_mcp.research.claims import adds_nothing

    short = "The walrus operator := assigns a variable in an expression."
    longer = (
        "There is new syntax := that assigns values to variables as part of a larger expression. "
        "It is affectionately known as the walrus operator."
    )
    assert same_claim(short, longer)  # the symmetric test calls them one claim...
    assert not adds_nothing(longer, short)  # ...but the longer one says more, so it is kept
    assert adds_nothing(short, longer)
    assert adds_nothing("Only unpickle data you trust.", "only unpickle data you trust")
