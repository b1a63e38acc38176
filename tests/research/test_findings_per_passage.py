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


def test_an_answer_in_the_sixth_passage_is_still_reported() -> None:
    """Retrieval's order counts with the discount of DCG (1 / log2(1 + position)): the sixth passage keeps
    more than a sixth of the first's credit, and its answer is not cut as filler below the first."""
    fillers = [
        "Posts hold each shelf a hand's width above the one below it.",
        "Cones bend when the firing reaches its heat.",
        "The lid has a peephole for watching the cones.",
        "Elements are coiled wire set in grooves of the walls.",
    ]
    passages = [(1, "kiln.md, Kiln > Shelves", "Glaze on kiln shelves is ground off with a stone.")]
    passages += [(i + 2, f"kiln.md, Kiln > Part {i}", text) for i, text in enumerate(fillers)]
    passages.append((6, "kiln.md, Kiln > Wash", "A thin coat of kiln wash stops drips sticking."))
    found = local_findings("How do I stop glaze drips fusing pots to kiln shelves?", passages).splitlines()
    assert "- A thin coat of kiln wash stops drips sticking. [6]" in found
    assert not any("peephole" in line or "coiled wire" in line for line in found)
