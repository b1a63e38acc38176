"""Retrieval over a real corpus: evidence phrased unlike the question, caveats, diversity."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from deepr_mcp.research.corpus.backfill import embed_pending
from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.retrieval.hybrid import HybridSearch, Mode
from deepr_mcp.research.retrieval.lexical import Retriever, mmr
from tests.research.concepts import ConceptEmbedder

DOCS = {
    "crates.md": """# crates

## Unpacking

Crate.unpack(shelf=".", items=None) unpacks all items from the crate onto the current shelf or the
given shelf.

Warning: never unpack crates from unknown suppliers without prior inspection. It is possible that items
land beyond the shelf, e.g. items whose labels start with "/" or labels holding two dots "..".

## Listing

Crate.items() returns the items of the crate as a list of Label objects.
""",
    "boxes.md": """# boxes

## Unpacking

Box.unpack(shelf=None) unpacks all items from the box onto the current shelf.
""",
    "copies.md": """# copies

## One

Crate unpack crate unpack crate label tricks notes and more notes.

## Two

Crate unpack crate unpack crate label tricks notes and more notes, again.
""",
}
QUESTION = "How do I safely unpack a crate against label tricks?"


def indexed(tmp_path: Path, docs: dict[str, str]) -> Corpus:
    """A corpus of ``docs`` (file name -> text), written to ``tmp_path`` and added."""
    for name, text in docs.items():
        (tmp_path / name).write_text(text)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path)
    return corpus


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return indexed(tmp_path, DOCS)


def test_safety_questions_surface_the_warning_phrased_differently(corpus: Corpus) -> None:
    analysis = analyse(QUESTION)
    evidence = Retriever(corpus).retrieve(analysis.question, analysis, 3)
    texts = [p.text for p in evidence.passages]
    assert any("land beyond the shelf" in t for t in texts)


def test_near_copies_are_not_both_returned(corpus: Corpus) -> None:
    analysis = analyse("How do I unpack a crate?")
    evidence = Retriever(corpus).retrieve(analysis.question, analysis, 4)
    copies = [p for p in evidence.passages if p.text.startswith("Crate unpack")]
    assert len(copies) <= 1


def test_mmr_edges() -> None:
    assert mmr([], 3) == []


def test_empty_corpus_gives_no_evidence(tmp_path: Path) -> None:
    analysis = analyse("What is a cone pack?")
    assert Retriever(Corpus(tmp_path / "empty.db")).retrieve(analysis.question, analysis, 3).passages == []


def test_two_question_words_are_also_searched_as_the_identifier_the_corpus_writes(tmp_path: Path) -> None:
    (tmp_path / "kilnlog.md").write_text(
        "# kilnlog\n\n## kilnlog.reader\n\nReturn a reader that walks the readings kept in the given logfile.\n\n"
        "## kilnlog.writer\n\nReturn a writer that appends readings as delimited strings.\n\n"
        "## Formats\n\nA format describes entries, fields and quoting of a log in kiln format.\n\n"
        "## Sniffer\n\nThe Sniffer reads a sample of a log and guesses the format of its entries.\n\n"
        "## Entries\n\nEach entry read from the log is returned as a list of strings.\n\n"
        "## Writing\n\nEntries are written to the log one by one with writeentry.\n"
    )
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "kilnlog.md")
    retriever = Retriever(corpus)
    question = "How do I read entries from a log file?"
    assert retriever._compounds(question) == ["logfile"]
    assert retriever._compounds("How do I open a zip archive?") == []  # no such word in this corpus
    analysis = analyse(question)
    evidence = retriever.retrieve(analysis.question, analysis, 3)
    assert "kilnlog > kilnlog.reader" in [p.location for p in evidence.passages]
    retriever._compounds = lambda text: []  # type: ignore[method-assign]  # without the joined word
    evidence = retriever.retrieve(analysis.question, analysis, 3)
    assert "kilnlog > kilnlog.reader" not in [p.location for p in evidence.passages]


def test_a_definition_question_weighs_the_defined_term_not_its_question_words(tmp_path: Path) -> None:
    (tmp_path / "docs.md").write_text(
        "# Glossary\n\n## ZBLT\n\nZero bubbles at low temperature: hold the kiln below red heat until the glaze "
        "settles.\n\n# statistics\n\n## mean\n\nThe mean of the readings; the mean is the sum divided by the count, "
        "the arithmetic mean.\n"
    )
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "docs.md")
    analysis = analyse("What does ZBLT mean?")
    evidence = Retriever(corpus).retrieve(analysis.question, analysis, 1)
    assert evidence.passages[0].text.startswith("Zero bubbles")


def test_a_safety_how_to_does_not_trade_its_warnings_for_reference_entries(corpus: Corpus) -> None:
    analysis = analyse(QUESTION)
    evidence = Retriever(corpus).retrieve("What does the documentation warn about?", analysis, 2)
    assert any("land beyond the shelf" in p.text for p in evidence.passages)


NEAR = {"dust": 0.95, "crawling": 0.8}
"""A passage's cosine to any question, by a word it holds (0.1 without one)."""


class Nearness:
    """An embedder whose cosines are set by hand: the question is the first axis, and a passage's cosine to it
    is given by the word it holds (``NEAR``), so which passage is nearest by meaning is the test's choice."""

    name = "nearness@1"
    dimensions = 2

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        rows = []
        for text in texts:
            cosine = 1.0 if query else next((c for w, c in NEAR.items() if w in text.lower()), 0.1)
            rows.append([cosine, (1 - cosine**2) ** 0.5])
        return np.array(rows, dtype=np.float32)


def test_a_passage_first_by_meaning_and_second_by_words_beats_the_reverse(tmp_path: Path) -> None:
    """Users ask in their own words, so research counts a candidate's rank by meaning above its rank by words:
    the passage that says it in the documents' words (second by words, first by meaning) comes first."""
    glaze = (
        "# Glaze\n\n## Crawling\n\nGlaze crawling on pots: glaze crawling shows on pots as bare patches of pots.\n\n"
        "## Preparing ware\n\nWipe bisque ware clean of dust before dipping it in glaze, so the coat holds.\n\n"
        "## Firing\n\nThe kiln climbs slowly to cone six and holds there.\n"
    )
    corpus = indexed(tmp_path, {"glaze.md": glaze})
    embedder = Nearness()
    embed_pending(corpus, embedder)
    analysis = analyse("How do I keep glaze from crawling on my pots?")

    def first(mode: Mode) -> str:
        retriever = Retriever(corpus, HybridSearch(corpus, embedder), mode)
        return retriever.retrieve(analysis.question, analysis, 1).passages[0].location

    assert first("lexical") == "Glaze > Crawling"
    assert first("hybrid") == "Glaze > Preparing ware"
    assert first("semantic") == "Glaze > Preparing ware"


def test_a_later_part_that_refers_back_is_searched_by_meaning_with_the_clause_before_it(tmp_path: Path) -> None:
    """ "How do I stop that?" finds by meaning what "that" stands for: in "Why do my mugs split, and how do I stop
    that?", the cooling that keeps mugs whole, not the shelf where mugs stop."""
    kiln = (
        "# Kiln\n\n## Cooling\n\nLet the kiln cool slowly overnight with its door shut so the ware stays whole.\n\n"
        "## Loading\n\nMugs stop on the top shelf in a row, stacked before they go into the kiln.\n"
    )
    corpus = indexed(tmp_path, {"kiln.md": kiln})
    embedder = ConceptEmbedder()
    embed_pending(corpus, embedder)
    retriever = Retriever(corpus, HybridSearch(corpus, embedder), "semantic")
    asked = analyse("Why do my mugs split, and how do I stop that?")
    later = asked.clauses[1]
    assert later == "How do I stop that?"
    assert retriever.retrieve(later, asked, 1).passages[0].location == "Kiln > Cooling"
    alone = analyse(later)  # the same words asked alone: nothing to lean on
    assert retriever.retrieve(later, alone, 1).passages[0].location == "Kiln > Loading"
