"""Signals from the question's structure: the sides of a comparison, and passages that cover them."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research import retrieval
from deepr_mcp.research.analysis import analyse
from deepr_mcp.research.passages import Corpus
from deepr_mcp.research.retrieval import Retriever
from deepr_mcp.research.signals import covered, names_all, sides


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
    monkeypatch.setattr(retrieval, "COVER_BOOST", 1.0)  # without the signal the side entries crowd it out
    assert not any("recommended approach" in t for t in top(2))
