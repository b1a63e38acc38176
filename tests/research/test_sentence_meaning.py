"""Which sentence of a retrieved passage a report quotes is judged by meaning as well as by words.

A reader asks in their own words ("my pots keep shattering"); the manual says it in its own ("cool
the kiln slowly below 600 degrees"). The engine gives the provider each sentence's standing in meaning
for the part (``meaning.sentence_standing``); the local provider fuses that ranking with its word
ranking, as far as words fail, and lets a sentence that stands out by meaning past the word floor.
The documents are made up (a kiln manual); the standings are given, as the engine would compute them.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from deepr_mcp.embedding import shared_embedder
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.passage import Passage
from deepr_mcp.research.providers.base import Completion, FindingsRequest, Request
from deepr_mcp.research.providers.local import LocalProvider, findings_text
from deepr_mcp.research.retrieval.hybrid import HybridSearch
from deepr_mcp.research.synthesis.claims import units
from deepr_mcp.research.synthesis.meaning import COVER_SPREAD, nearest, sentence_standing
from deepr_mcp.research.synthesis.verify import Floor
from tests.heat_pumps import HEAT_PUMPS
from tests.research.requests import findings_request
from tests.research.test_coverage_meaning import DOC, QUESTION, embedded_corpus

SUB = "Why do my pots keep shattering when I open the kiln?"
ANSWER = "Cool the chamber slowly: below 600 degrees a sudden draught cracks glazed ware."
PASSAGES = [
    (1, "manual.md, Kiln > Loading", "Pots are loaded on shelves. The kiln holds forty pots on four shelves."),
    (2, "manual.md, Kiln > Opening", "Open the kiln lid with both hands. The lid of the kiln is heavy."),
    (3, "manual.md, Kiln > Cooling", f"{ANSWER} Leave the bungs in until the next morning."),
]


def listed(text: str) -> list[str]:
    return [line[2:].rsplit(" [", 1)[0] for line in text.splitlines() if line.startswith("- ")]


def test_a_sentence_that_stands_out_by_meaning_is_quoted_though_it_shares_no_words() -> None:
    request = findings_request(SUB, PASSAGES)
    assert ANSWER not in listed(findings_text(request))  # by words alone it is filler
    standing = {ANSWER: COVER_SPREAD + 1, "Pots are loaded on shelves.": 1.0, "Open the kiln lid with both hands.": 2.0}
    found = listed(findings_text(replace(request, closeness=standing)))
    assert ANSWER in found


def test_a_sentence_near_only_by_its_rank_is_not_let_past_the_floor() -> None:
    """Among a handful of passages the nearest sentence may still be far: it must stand out from the corpus."""
    request = findings_request(SUB, PASSAGES)
    standing = {ANSWER: COVER_SPREAD - 1, "Pots are loaded on shelves.": 0.5}
    assert ANSWER not in listed(findings_text(replace(request, closeness=standing)))


def test_the_nearest_are_those_standing_out_and_no_more_than_a_part_lists() -> None:
    standing = {"a": COVER_SPREAD + 2, "b": COVER_SPREAD + 1, "c": COVER_SPREAD, "d": COVER_SPREAD - 0.5}
    assert nearest(standing, 10) == {"a", "b", "c"}
    assert nearest(standing, 2) == {"a", "b"}
    assert nearest({}, 5) == frozenset()


def test_the_floor_admits_a_claim_whose_sentence_is_near_in_meaning() -> None:
    passage = Passage(id="p3", source="manual.md", location="Firing > Cooling", text=PASSAGES[2][2], score=1.0)
    wanted = {"pot", "shatter", "open", "kiln"}
    far = Floor(SUB, wanted, SUB)
    near = Floor(SUB, wanted, SUB, near=frozenset({ANSWER}))
    assert not far.admits(ANSWER, passage) and not far.shows(passage)
    assert near.admits(ANSWER, passage) and near.shows(passage)


def test_a_claim_takes_in_the_next_sentence_that_goes_on_about_it() -> None:
    """ "It ignores later edits ..." qualifies the sentence before it and says nothing alone."""
    text = (
        "The controller reads the firing schedule from the card at start-up. "
        "It ignores later edits until the next power cycle. "
        "Cards are sold in packs of three."
    )
    found = listed(findings_text(findings_request("Does the controller read the firing schedule?", [(1, "", text)])))
    assert found[0] == (
        "The controller reads the firing schedule from the card at start-up. "
        "It ignores later edits until the next power cycle."
    )


async def test_the_engine_hands_the_provider_each_sentences_standing(tmp_path: Path) -> None:
    """The standing is the corpus's statistic for the part: the renaming sentence stands out for "rename
    many programs", the keypad's undo does not; a corpus too small for a spread gets none at all."""
    corpus = embedded_corpus(tmp_path, DOC)
    seen: list[FindingsRequest] = []

    class Recording(LocalProvider):
        def research_now(self, request: Request) -> Completion:
            if isinstance(request, FindingsRequest):
                seen.append(request)
            return super().research_now(request)

    search = HybridSearch(corpus, shared_embedder("minilm"))
    await Engine(corpus, Recording(), search=search).run(new_state(QUESTION))
    rename = seen[0].closeness
    renames = next(s for s in rename if s.startswith("The `kilnctl mv` command renames"))
    keypad = next(s for s in rename if s.startswith("The keypad's undo key"))
    assert rename[renames] >= COVER_SPREAD > rename[keypad]
    assert set(rename) >= {u.text for p in seen[0].passages for u in units(p.text) if u.text}


async def test_no_standing_on_a_corpus_too_small_to_have_a_spread(tmp_path: Path) -> None:
    corpus = embedded_corpus(tmp_path, HEAT_PUMPS)
    search = HybridSearch(corpus, shared_embedder("minilm"))
    assert sentence_standing(search, ["How loud is a heat pump?"], [HEAT_PUMPS]) == {}
