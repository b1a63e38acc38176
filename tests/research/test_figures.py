"""A question asking for a figure is answered only by a passage that gives one (``reading.figures``).

"How many firings does an element last?" asked of a manual that speaks of elements but gives no number is not
answered by it, however close its passages stand: the report says the passages give no figure. Small made-up
kiln documents.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.research.reading.figures import asks_figure, states_figure, unfigured
from tests.research.documents import corpus_of

MANUAL = """# Kiln manual

## Elements

The heating elements are coils of resistance wire set in grooves of the kiln wall. Elements wear with every
firing: an old element heats more slowly, and a firing that used to reach its peak on time falls behind.
Replace the elements when a glaze firing no longer reaches its peak temperature.

## Cooling

Let the kiln cool with the lid closed. Cooling from top temperature takes about a day; below 100 degrees the
lid may be opened.

## Loading

Load the tallest pots at the back of each shelf, and leave a finger's width between the pots.
"""


@pytest.mark.parametrize(
    "question",
    [
        "How many firings does a kiln element last?",
        "Roughly how long does the kiln take to cool?",
        "My kiln is old. Until when will the maker sell spare elements?",
        "For a small studio, how much does a firing cost in power?",
        "What share of firings crack a shelf?",
        "How do I load the kiln, and how many pots fit on a shelf?",
    ],
)
def test_a_question_opening_with_how_many_or_until_when_asks_for_a_figure(question: str) -> None:
    assert asks_figure(question)


@pytest.mark.parametrize(
    "question",
    [
        "How do I find out how many firings an element has had?",  # asks how, not how many
        "In the manual, how do I check how much power the kiln draws?",
        "Is there a limit to how hot the kiln gets?",  # a yes/no question
        "Why do elements wear out?",
    ],
)
def test_a_question_asking_how_or_whether_asks_for_no_figure(question: str) -> None:
    assert not asks_figure(question)


@pytest.mark.parametrize(
    ("text", "question", "figure"),
    [
        ("Cooling takes about a day.", "", True),  # a unit of time counted by "a"
        ("An element lasts 150 firings.", "", True),
        ("Two finger widths between the pots.", "", True),
        ("There is no limit on the number of shelves.", "", True),
        ("Elements wear with every firing.", "", False),
        ("Set the model to kiln-9, read the sha256 sum, see kilnctl@2 and #41.", "", False),  # names, not figures
        ("Model K11 is still sold.", "Until when will model K11 be sold?", False),  # the question's own numeral
        ("Spare parts are sold until 2031.", "Until when will model K11 be sold?", True),
    ],
)
def test_a_figure_is_a_numeral_a_number_word_or_a_counted_unit(text: str, question: str, figure: bool) -> None:
    assert states_figure(text, question) is figure


def test_unfigured_means_a_figure_was_asked_and_no_finding_gives_one() -> None:
    assert unfigured("How many firings does an element last?", "", ["Elements wear with every firing."])
    assert not unfigured("How many firings does an element last?", "", ["An element lasts about 150 firings."])
    assert not unfigured("Why do elements wear?", "", ["Elements wear with every firing."])
    far_down = ["Elements wear.", "Old elements heat slowly.", "Replace worn elements.", "Kiln model 40 ships soon."]
    assert unfigured("How many firings does an element last?", "", far_down)  # a number far down is another's
    assert not unfigured("How many firings does an element last?", "", far_down[1:])


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return corpus_of(tmp_path, "kiln.md", MANUAL)


async def test_a_figure_the_passages_do_not_give_is_a_gap_and_the_near_passages_are_shown(corpus: Corpus) -> None:
    state = await Engine(corpus, LocalProvider()).run(new_state("How many firings does a kiln element last?"))
    report = state.report or ""
    assert [sq.status for sq in state.sub_questions] == ["weak"] and state.sub_questions[0].no_figure
    answer = report.split("## Answer", 1)[1].split("\n## ", 1)[0]
    assert answer.lstrip().startswith("_No passage found clearly answers this question")
    assert "Elements wear with every firing" in report  # what the documents do say, as near
    gaps = report.split("## Gaps", 1)[1].split("\n## ", 1)[0]
    assert "the passages found give no figure for it" in gaps


async def test_a_figure_the_passages_give_answers_the_question(corpus: Corpus) -> None:
    state = await Engine(corpus, LocalProvider()).run(new_state("How long does the kiln take to cool down?"))
    assert [sq.status for sq in state.sub_questions] == ["answered"] and not state.sub_questions[0].no_figure
    assert "about a day" in (state.report or "").split("## Findings", 1)[0] and "## Gaps" not in (state.report or "")


async def test_only_the_part_asking_for_a_figure_is_a_gap(corpus: Corpus) -> None:
    question = "How do I load the kiln, and how many firings does an element last?"
    state = await Engine(corpus, LocalProvider()).run(new_state(question))
    loading, lasting = state.sub_questions
    assert loading.status == "answered" and not loading.no_figure
    assert lasting.status != "answered" and lasting.no_figure
    assert "give no figure" in (state.report or "").split("## Gaps", 1)[1]
