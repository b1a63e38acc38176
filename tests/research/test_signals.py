"""Signals from the question's structure: the sides of a comparison, and passages that cover them."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.retrieval import lexical as retrieval
from deepr_mcp.research.retrieval.lexical import Retriever
from deepr_mcp.research.retrieval.signals import coordination, covered, names_all, sides


def test_sides_keep_the_words_that_tell_them_apart() -> None:
    assert sides(["glaze.dip", "glaze.brush"]) == [frozenset({"dip"}), frozenset({"brush"})]
    assert sides(["stoneware", "earthenware"]) == [frozenset({"stonewar"}), frozenset({"earthenwar"})]


@pytest.mark.parametrize(
    "entities",
    [
        [],  # nothing compared
        ["tuple"],  # one side
        ["the list", "a list"],  # the same side twice: nothing tells them apart
        ["json", "the"],  # a side with no content word
    ],
)
def test_no_sides_when_nothing_tells_them_apart(entities: list[str]) -> None:
    assert sides(entities) == []


def test_a_text_names_all_sides_only_when_it_names_each() -> None:
    compared = sides(["glaze.dip", "glaze.brush"])
    assert names_all("How do glaze.dip and glaze.brush differ?", compared)
    assert not names_all("What does glaze.dip do?", compared)
    assert not names_all("How do they differ?", [])


def test_covered_counts_the_sides_a_passage_speaks_of() -> None:
    compared = sides(["glaze.dip", "glaze.brush"])
    assert covered({"dip", "brush", "recommend"}, compared) == 2
    assert covered({"dip", "bucket"}, compared) == 1
    assert covered(set(), compared) == 0


DOCS = """# glaze

## Choosing a method

The recommended approach is the dip() call for every pot the bucket can hold; for larger and odder pieces
the slower brush can be worked by hand.

## glaze.dip

glaze.dip(pot) lowers the pot into the bucket and lifts it after three seconds.

The glaze.dip call returns the coat thickness; glaze.dip takes a timeout.

## glaze.brush

glaze.brush(pot) paints one coat on the pot.

glaze.brush accepts the stroke argument; glaze.brush on bisque uses a soft bristle.

glaze.brush raises DryError when the glaze cannot be loaded by glaze.brush.
"""


def test_a_comparison_prefers_the_passage_that_speaks_of_both_sides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "glaze.md").write_text(DOCS)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path)
    analysis = analyse("When should I use glaze.brush rather than glaze.dip?")

    def top(k: int) -> list[str]:
        return [p.text for p in Retriever(corpus).retrieve(analysis.question, analysis, k).passages]

    assert any("recommended approach" in t for t in top(2))
    # a sub-question about one side alone is not pulled towards passages about both
    one_side = Retriever(corpus).retrieve("What does glaze.brush paint?", analysis, 1).passages
    assert "brush" in one_side[0].location
    monkeypatch.setattr(retrieval, "COVER_BOOST", 1.0)
    monkeypatch.setattr(retrieval, "coordination", lambda weights, words: 1.0)
    assert not any("recommended approach" in t for t in top(2))  # without both, the side entries crowd it out


def test_coordination_is_the_weighted_share_of_main_terms_held() -> None:
    weights = {"glaze": 1.0, "pot": 1.0, "sheen": 2.0, "use": 0.3, "feedback": 0.35}
    assert coordination(weights, {"glaze", "pot", "sheen"}) == 1.0
    assert coordination(weights, {"sheen"}) == 0.5
    assert coordination(weights, {"use", "feedback"}) == 0.0  # optional words do not count
    assert coordination({"use": 0.3}, set()) == 1.0  # nothing main asked: no penalty


def test_a_passage_with_every_question_term_beats_one_term_repeated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "docs.md").write_text(
        "# gauge\n\n## SHEEN\n\nThe sheen mode reads the sheen of the surface and compares sheens.\n\n"
        "# glazing\n\n## glaze.match\n\nGlaze the second pot with the bucket and the dip time of the first pot, "
        "so that a glazed pot has the same sheen.\n"
    )
    for i in range(4):  # "glaze" and "pot" are common words of this corpus, "sheen" is rarer
        (tmp_path / f"other{i}.md").write_text(f"# other {i}\n\nGlaze a pot {i} after another pot; a glaze on a pot.\n")
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path)
    analysis = analyse("How do I glaze a pot and keep its sheen?")

    def first() -> str:
        return Retriever(corpus).retrieve(analysis.question, analysis, 1).passages[0].location

    assert first().endswith("glaze.match")
    monkeypatch.setattr(retrieval, "coordination", lambda weights, words: 1.0)
    assert first().endswith("SHEEN")


class _Recording:
    """A corpus that records the searches made and finds nothing."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def search_passages(self, query: str, limit: int, *, headings_only: bool = False) -> list:
        self.queries.append(query)
        return []


def test_a_comparison_pools_each_side_on_its_own() -> None:
    corpus = _Recording()
    analysis = analyse("What are the differences between a glaze kiln and a raku pit?")
    Retriever(corpus).retrieve(analysis.question, analysis, 3)
    assert "a glaze kiln" in corpus.queries and "a raku pit" in corpus.queries
