"""An answer that runs on past its passage's end: the passage after it, in the same section, comes with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.retrieval import lexical
from deepr_mcp.research.retrieval.lexical import Retriever

RULE = (
    "To withdraw a crate from the depot, run depot withdraw with the crate's name and its number. The depot "
    "asks once more before it lets the crate go, and prints what it withdrew. A crate that other crates lean on "
    "is refused: withdraw those first, or pass the force flag to withdraw them all at once. Withdrawing takes a "
    "minute or two while the depot rewrites its ledger, and the crate stays listed until that is done. Only the "
    "owner of a crate, or a keeper of the whole depot, may withdraw it; anyone else is told so and nothing moves."
)
AFTERMATH = (
    "Afterwards its shelf slot stays sealed for good: no other load may take that slot, so the next load goes on "
    "another shelf. Carters who had it on their round arrive to an empty shelf and turn back with nothing, and "
    "no note tells them beforehand. Think twice before taking back something carters still call for; putting a "
    "red tag on it is kinder, and keeps their rounds going while they switch to a newer load. On the day it came "
    "in, though, a slip can be undone at no such cost, as long as no round calls for it yet."
)
DOCS = {
    "store.md": f"# Store\n\n## Taking one back\n\n{RULE}\n\n{AFTERMATH}\n\n## Weighing\n\n"
    "Scales read in kilograms; tare them before each load so the reading starts at nought.\n",
    "sending.md": "# Sending\n\n## Crates\n\nA crate goes to the depot by cart.\n\n## Labels\n\n"
    "Every crate carries a label the depot reads.\n",
}
QUESTION = "How do I withdraw a crate from the depot?"


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    for name, text in DOCS.items():
        (tmp_path / name).write_text(text)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path)
    return corpus


def passage_holding(corpus: Corpus, words: str) -> str:
    (found,) = [p.id for p in corpus.iter_passages() if words in p.text]
    return found


def test_the_corpus_tells_the_passages_beside_one_in_its_document(corpus: Corpus) -> None:
    rule, aftermath = passage_holding(corpus, "run depot withdraw"), passage_holding(corpus, "stays sealed")
    weighing = passage_holding(corpus, "Scales read")
    assert [p.id for p in corpus.neighbours([aftermath])] == [rule, weighing]  # before, then after
    assert [p.id for p in corpus.neighbours([rule])] == [aftermath]  # the document's first passage
    assert [p.id for p in corpus.neighbours([rule, weighing])] == [aftermath]  # each once
    assert corpus.neighbours(["p0000000000000000"]) == []
    assert corpus.passage(rule).location == "Store > Taking one back"


def test_the_passage_that_continues_the_best_one_ranks_just_behind_it(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sealed slot is the caveat a user needs, in words neither the question nor its heading uses; it is
    found because it follows the rule in the same section. The section after (weighing) is not pulled in."""
    asked = analyse(QUESTION)
    found = [p.id for p in Retriever(corpus).retrieve(QUESTION, asked, 3).passages]
    rule, aftermath = passage_holding(corpus, "run depot withdraw"), passage_holding(corpus, "stays sealed")
    assert found[:2] == [rule, aftermath]
    assert passage_holding(corpus, "Scales read") not in found
    monkeypatch.setattr(lexical, "BESIDE_OF", 0)
    assert aftermath not in [p.id for p in Retriever(corpus).retrieve(QUESTION, asked, 3).passages]
