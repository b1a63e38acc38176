"""The local provider chooses sentences by meaning as well as by words, when it has the corpus's embedder.

A toy embedder stands in for the model here so that what is close is decided by the test: each text
is a unit vector over a few invented concepts, found by the words that stand for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from deepr_mcp.config import Settings
from deepr_mcp.embedding.base import NoEmbedder
from deepr_mcp.research.providers.factory import make_provider
from deepr_mcp.research.providers.local import LocalProvider, best_units, findings_text, fused
from deepr_mcp.research.synthesis.claims import Unit
from deepr_mcp.research.synthesis.closeness import SentenceCloseness
from tests.research.concepts import ConceptEmbedder
from tests.research.requests import findings_request

QUESTION = "How do I stop mugs from cracking?"
ON_THE_SHELF = "Mugs stop on the top shelf in a row, stacked before they go into the kiln, cracked or not."
COOL_SLOWLY = "Let the kiln cool slowly overnight with its door shut so the ware stays whole."
PASSAGES = [(1, "kiln.md, Unloading", COOL_SLOWLY), (2, "kiln.md, Loading", ON_THE_SHELF)]


def request():  # type: ignore[no-untyped-def]
    # passage 1 came from the dense index and retrieval ranked it first: it answers in words the question does
    # not use
    return replace(findings_request(QUESTION, PASSAGES), max_findings=1, meant=(1,))


def test_the_sentence_that_means_the_answer_is_chosen_over_one_that_shares_the_words() -> None:
    near = SentenceCloseness(ConceptEmbedder())
    by_words = [n for _, n, _ in best_units(request())]
    by_meaning = [n for _, n, _ in best_units(request(), near)]
    assert by_words[0] == 2  # "mugs", "stop" and nothing else of the question: words alone put it first
    assert by_meaning[0] == 1  # first by meaning and by place
    assert findings_text(request(), near) == f"- {COOL_SLOWLY} [1]"


def test_without_an_embedder_the_provider_ranks_by_words() -> None:
    assert LocalProvider().near is None
    assert LocalProvider(NoEmbedder()).near is None  # research.embedder = "none"
    assert LocalProvider(ConceptEmbedder()).near is not None
    provider = make_provider(Settings(), None, "local", embedder=ConceptEmbedder())
    assert isinstance(provider, LocalProvider) and provider.near is not None


def test_a_sentence_is_embedded_once_and_only_the_question_each_time() -> None:
    embedder = ConceptEmbedder()
    near = SentenceCloseness(embedder)
    first = near(QUESTION, [ON_THE_SHELF, COOL_SLOWLY])
    assert embedder.embedded == [ON_THE_SHELF, COOL_SLOWLY, QUESTION]
    again = near(QUESTION, [COOL_SLOWLY, ON_THE_SHELF])
    assert embedder.embedded[3:] == [QUESTION]
    assert again == first[::-1]
    assert first[1] > first[0]


def test_the_sentence_cache_is_bounded() -> None:
    embedder = ConceptEmbedder()
    near = SentenceCloseness(embedder, cached=2)
    near(QUESTION, ["one shelf.", "two shelves.", "a row."])
    near(QUESTION, ["one shelf."])  # the oldest was let go: embedded again
    assert embedder.embedded.count("one shelf.") == 2
    assert len(near._vectors) == 2


def test_code_spans_are_left_out_of_what_is_compared() -> None:
    embedder = ConceptEmbedder()
    SentenceCloseness(embedder)(QUESTION, ["Call `crack()` to read the shelf."])
    assert "crack" not in embedder.embedded[0] and embedder.embedded[0].endswith("to read the shelf.")


def scored_units(values: list[float]) -> list[tuple[float, int, int, Unit, int]]:
    """Sentences as ``best_units`` scores them by words: one per passage, passage i ranked i by retrieval."""
    return [(value, -i, 0, Unit(f"sentence {i} about a shelf.", None, 0), i + 1) for i, value in enumerate(values)]


def test_fusion_measures_every_sentence_and_ranks_by_words_meaning_and_place_together() -> None:
    # sentence 0 is second by words, first by meaning and by place (its passage ranked first by retrieval)
    scored = scored_units([0.3, 0.9])
    asked: list[str] = []

    def near(question: str, sentences: Sequence[str], context: str = "") -> list[float]:
        asked.extend(sentences)
        return [0.8, 0.1]

    out = fused(scored, QUESTION, near)
    assert asked == [s[3].text for s in scored]  # every sentence, not only the best by words
    assert out[0][0] > out[1][0]  # first in two of three orders
    assert out[0][0] == 0.9  # rescaled: the best keeps the best score by words


def test_a_finding_far_below_the_best_by_words_is_kept_when_fused_and_dropped_by_words_alone() -> None:
    low = "Mugs stay whole when the kiln cools slowly overnight."
    passages = [
        (1, "kiln.md, Faults", "Mugs crack and split when you stop the kiln and open it hot."),
        (2, "kiln.md, Glazes", "Glazes run when fired too hot."),
        (3, "kiln.md, Unloading", low),
    ]
    req = replace(findings_request(QUESTION, passages), max_findings=2)
    assert low not in findings_text(req)  # under half the best's score by words: filler by words alone
    fused_text = findings_text(req, SentenceCloseness(ConceptEmbedder()))
    assert f"- {low} [3]" in fused_text  # close in meaning: within the cap


def test_a_part_that_refers_back_is_read_with_the_clause_before_it() -> None:
    """ "How do I stop that?" means nothing alone; after "Why do my mugs split?" it asks how to keep them whole."""
    near = SentenceCloseness(ConceptEmbedder())
    alone = near("How do I stop that?", [ON_THE_SHELF, COOL_SLOWLY])
    leaning = near("How do I stop that?", [ON_THE_SHELF, COOL_SLOWLY], "Why do my mugs split?")
    assert alone[0] > alone[1]  # nothing of the question's meaning: the shorter vector's constant axis wins
    assert leaning[1] > leaning[0]  # what "that" stands for: splitting, which cooling slowly prevents
    assert leaning[1] > alone[1]


def test_the_findings_step_reads_a_part_in_its_context() -> None:
    # passage 1 came from the dense index: it shares no word with the part
    part = replace(findings_request("How do I stop that?", PASSAGES), max_findings=1, meant=(1,))
    assert findings_text(part, SentenceCloseness(ConceptEmbedder())) != f"- {COOL_SLOWLY} [1]"
    leaning = replace(part, context="Why do my mugs split?")
    assert findings_text(leaning, SentenceCloseness(ConceptEmbedder())) == f"- {COOL_SLOWLY} [1]"
