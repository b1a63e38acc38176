"""Retrieval by whole page: a page whose passages each say only part of the answer is found as a whole,
though none of its passages alone is among the nearest to the question.

The documents are a made-up kiln manual: a page on cooling down slowly (a controlled descent, the lid
and vents, quartz inversion: none names cracking pots overnight), a page on mending cracked pots that
shares the question's words, a page on night electricity rates, and ten pages of varied notes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.embedding import Embedder, shared_embedder
from deepr_mcp.research.corpus.backfill import embed_pending
from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.retrieval.hybrid import HybridSearch
from deepr_mcp.research.retrieval.lexical import Retriever
from tests.research.test_coverage_meaning import TEMPLATES

COOLING = """# Cooling down slowly

## Descent

After the peak the controller can lower the temperature by a set number of degrees an hour instead of switching off.

## Lid and vents

Keep the lid shut and the vents closed until the pyrometer shows under 100 degrees.

## Quartz inversion

At 573 degrees quartz in the clay body changes size suddenly; ware passing through it fast splits.
"""
MENDING = """# Mending

## Glue

Cracked pots can be glued with epoxy and shown on a shelf.

## Paint

Gold paint hides a mended seam.

## Prices

Mended pieces sell for half price at the fair.
"""
NIGHT = """# Night rates

## Overnight

Firing overnight uses cheaper electricity.

## Meter

The meter is read in January.

## Tariffs

Three tariffs are offered by the utility.
"""
QUESTION = "How do I stop my pots cracking when the kiln cools overnight?"


@pytest.fixture(scope="module")
def model() -> Embedder:
    return shared_embedder("minilm")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, model: Embedder) -> Corpus:
    folder = tmp_path_factory.mktemp("kiln")
    (folder / "cooling.md").write_text(COOLING)
    (folder / "mending.md").write_text(MENDING)
    (folder / "night.md").write_text(NIGHT)
    for page in range(10):
        notes = (f"## Note {n}\n\n{TEMPLATES[n % 10](n)}" for n in range(page * 10 + 1, page * 10 + 11))
        (folder / f"notes{page}.md").write_text(f"# Notes {page}\n\n" + "\n\n".join(notes))
    corpus = Corpus(folder / "corpus.db")
    corpus.add_path(folder)
    embed_pending(corpus, model)
    return corpus


def test_the_page_is_nearest_as_a_whole_though_none_of_its_passages_is(corpus: Corpus, model: Embedder) -> None:
    search = HybridSearch(corpus, model)
    nearest_passages = search.semantic([QUESTION], 10)[0]
    assert nearest_passages and all(p.source != "cooling.md" for p in nearest_passages)
    pages = search.near_pages([QUESTION])
    assert pages[0][0].source == "cooling.md"
    assert {p.location.split(" > ")[-1] for p in pages[0]} == {"Descent", "Lid and vents", "Quartz inversion"}
    assert "cooling.md" in {p.source for p in search.search(QUESTION, 5)}  # the page list, fused


def test_corpus_search_without_the_page_list_misses_the_page(
    corpus: Corpus, model: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    search = HybridSearch(corpus, model)
    monkeypatch.setattr(search, "near_pages", lambda queries, limit=5: [])
    assert "cooling.md" not in {p.source for p in search.search(QUESTION, 5)}


def test_research_retrieval_takes_the_near_pages_best_passages(
    corpus: Corpus, model: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysis = analyse(QUESTION)
    search = HybridSearch(corpus, model)
    found = Retriever(corpus, search, "hybrid").retrieve(QUESTION, analysis, 3).passages
    assert "cooling.md" in {p.source for p in found}
    monkeypatch.setattr(search, "near_pages", lambda queries, limit=5: [])
    without = Retriever(corpus, search, "hybrid").retrieve(QUESTION, analysis, 3).passages
    assert "cooling.md" not in {p.source for p in without}


def test_a_page_added_later_joins_the_page_index(tmp_path: Path, model: Embedder) -> None:
    (tmp_path / "mending.md").write_text(MENDING)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "mending.md")
    search = HybridSearch(corpus, model)
    assert search.near_pages([QUESTION]) == []  # nothing embedded yet: searched by words meanwhile
    assert {p.source for p in search.search(QUESTION, 3)} == {"mending.md"}
    embed_pending(corpus, model)
    assert {p.source for page in search.near_pages([QUESTION]) for p in page} == {"mending.md"}
    (tmp_path / "cooling.md").write_text(COOLING)
    corpus.add_path(tmp_path / "cooling.md")
    assert {p.source for page in search.near_pages([QUESTION]) for p in page} == {"mending.md"}  # not embedded yet
    embed_pending(corpus, model)
    assert {p.source for page in search.near_pages([QUESTION]) for p in page} == {"mending.md", "cooling.md"}


def test_no_pages_without_an_embedder(corpus: Corpus) -> None:
    from deepr_mcp.embedding import NoEmbedder

    assert HybridSearch(corpus, NoEmbedder()).near_pages([QUESTION]) == []


def test_a_page_replaced_by_as_many_passages_is_read_again(tmp_path: Path, model: Embedder) -> None:
    page = tmp_path / "page.md"
    page.write_text(MENDING)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(page)
    embed_pending(corpus, model)
    search = HybridSearch(corpus, model)
    assert search.near_pages([QUESTION])[0][0].location.startswith("Mending")
    page.write_text(COOLING)
    corpus.add_path(page)
    embed_pending(corpus, model)
    assert corpus.stats()["passages"] == 3
    assert {p.location for p in search.near_pages([QUESTION])[0]} == {
        "Cooling down slowly > Descent",
        "Cooling down slowly > Lid and vents",
        "Cooling down slowly > Quartz inversion",
    }
