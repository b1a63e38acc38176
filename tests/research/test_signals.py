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
    assert sides(["subprocess.Popen", "subprocess.run"]) == [frozenset({"popen"}), frozenset({"run"})]
    assert sides(["threading", "multiprocessing"]) == [frozenset({"thread"}), frozenset({"multiprocess"})]


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
    compared = sides(["subprocess.Popen", "subprocess.run"])
    assert names_all("How do subprocess.Popen and subprocess.run differ?", compared)
    assert not names_all("What does subprocess.Popen do?", compared)
    assert not names_all("How do they differ?", [])


def test_covered_counts_the_sides_a_passage_speaks_of() -> None:
    compared = sides(["subprocess.Popen", "subprocess.run"])
    assert covered({"popen", "run", "recommend"}, compared) == 2
    assert covered({"popen", "shell"}, compared) == 1
    assert covered(set(), compared) == 0


DOCS = """# subprocess

## Using the module

The recommended approach is the run() function for all use cases it can handle; for more advanced use
cases the underlying Popen interface can be used directly.

## subprocess.run

subprocess.run(args) runs the command described by args and waits for it to complete.

The subprocess.run function returns a CompletedProcess; subprocess.run takes a timeout.

## subprocess.Popen

subprocess.Popen(args) executes a child program in a new process.

subprocess.Popen accepts the shell argument; subprocess.Popen on Windows uses CreateProcess.

subprocess.Popen raises OSError when the program cannot be found by subprocess.Popen.
"""


def test_a_comparison_prefers_the_passage_that_speaks_of_both_sides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "subprocess.md").write_text(DOCS)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path)
    analysis = analyse("When should I use subprocess.Popen rather than subprocess.run?")

    def top(k: int) -> list[str]:
        return [p.text for p in Retriever(corpus).retrieve(analysis.question, analysis, k).passages]

    assert any("recommended approach" in t for t in top(2))
    # a sub-question about one side alone is not pulled towards passages about both
    one_side = Retriever(corpus).retrieve("What does subprocess.Popen do?", analysis, 1).passages
    assert "Popen" in one_side[0].location
    monkeypatch.setattr(retrieval, "coordination", lambda weights, words: 1.0)
    assert any("recommended approach" in t for t in top(2))  # the side coverage alone brings it
    monkeypatch.setattr(retrieval, "COVER_BOOST", 1.0)  # without either signal the side entries crowd it out
    assert not any("recommended approach" in t for t in top(2))


def test_coordination_is_the_weighted_share_of_main_terms_held() -> None:
    weights = {"copi": 1.0, "file": 1.0, "timestamp": 2.0, "use": 0.3, "feedback": 0.35}
    assert coordination(weights, {"copi", "file", "timestamp"}) == 1.0
    assert coordination(weights, {"timestamp"}) == 0.5
    assert coordination(weights, {"use", "feedback"}) == 0.0  # optional words do not count
    assert coordination({"use": 0.3}, set()) == 1.0  # nothing main asked: no penalty


def test_a_passage_with_every_question_term_beats_one_term_repeated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "docs.md").write_text(
        "# pyc\n\n## TIMESTAMP\n\nThe timestamp mode stores the timestamp of the source and compares timestamps.\n\n"
        "# shutil\n\n## shutil.copystat\n\nCopy the permission bits and modification times from one file to another, "
        "so that a copied file has the same timestamp.\n"
    )
    for i in range(4):  # "copy" and "file" are common words of this corpus, "timestamp" is rarer
        (tmp_path / f"other{i}.md").write_text(f"# other {i}\n\nCopy a file {i} to another file; the copy is a file.\n")
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path)
    analysis = analyse("How do I copy a file and keep its timestamp?")

    def first() -> str:
        return Retriever(corpus).retrieve(analysis.question, analysis, 1).passages[0].location

    assert first().endswith("shutil.copystat")
    monkeypatch.setattr(retrieval, "coordination", lambda weights, words: 1.0)
    assert first().endswith("TIMESTAMP")


class _Recording:
    """A corpus that records the searches made and finds nothing."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def search_passages(self, query: str, limit: int, *, headings_only: bool = False) -> list:
        self.queries.append(query)
        return []


def test_a_comparison_pools_each_side_on_its_own() -> None:
    corpus = _Recording()
    analysis = analyse("What is the difference between the is operator and == ?")
    Retriever(corpus).retrieve(analysis.question, analysis, 3)
    assert "the is operator identity" in corpus.queries  # a stop word side, searched by its name
    assert "== equality equal" in corpus.queries
