"""One passage may give three findings: documentation states a behaviour, then in the same section the
conditions and exceptions that bound it, and a cap of two dropped the exception."""

from __future__ import annotations

from tests.research.requests import local_findings

LID_LOCK = (
    "The kiln lid locks while the kiln is hot. "
    "Glaze firings run for about nine hours. "
    "A locked kiln lid cannot be lifted by hand. "
    "Cones show how far the firing has gone. "
    "The controller releases the lid lock at the end of cooling. "
    "Shelves are loaded from the bottom up. "
    "The kiln lid does not lock while the vent plug is out."
)


def test_the_exception_after_the_rule_is_reported() -> None:
    passages = [
        (1, "kiln.md, Kiln > Lid lock", LID_LOCK),
        (2, "kiln.md, Kiln > Vent", "The vent plug lets steam out of the kiln early in a firing."),
    ]
    found = local_findings("When does the kiln lid lock?", passages).splitlines()
    assert found[0] == "- The kiln lid locks while the kiln is hot. [1]"
    assert "- The kiln lid does not lock while the vent plug is out. [1]" in found
    assert not any("Shelves are loaded" in line or "nine hours" in line for line in found)  # not every sentence
