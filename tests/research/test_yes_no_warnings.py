"""A user asks about risk with a yes/no question ("If I open the lid while it is hot, will the pots crack?")
far more often than with a word for it; the answer is then the documents' caveat, and it leads the report.

The documents are a made-up kiln manual: a section on cooling whose steps come first and whose warning
comes last, among unrelated notes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.providers.local import LocalProvider
from tests.research.documents import corpus_of

MANUAL = """# Kiln manual

## Cooling after a firing

Let the kiln cool with the lid closed; it loses about 100 degrees an hour. Below 400 degrees you may prop the
lid open a crack with the peephole plug to speed the cooling of the pots. Never open the lid fully while the
kiln is above 200 degrees: the sudden draft cracks the pots and the shelves.

## Loading

Load the tallest pots at the back of each shelf, and leave two finger widths between the pots.

## Glazes

Stir the glaze bucket before dipping, and wipe the foot of every pot clean.
"""


async def _answer(tmp_path: Path, question: str, manual: str = MANUAL) -> str:
    corpus = corpus_of(tmp_path, "manual.md", manual)
    state = await Engine(corpus, LocalProvider()).run(new_state(question))
    return (state.report or "").split("## Answer", 1)[1].split("\n## ", 1)[0].strip()


async def test_a_yes_no_question_about_a_consequence_is_answered_by_the_warning_first(tmp_path: Path) -> None:
    answer = await _answer(tmp_path, "If I open the lid while the kiln is still hot, will my pots crack?")
    assert answer.startswith("Never open the lid fully while the kiln is above 200 degrees")


async def test_a_how_to_question_is_answered_by_the_steps_first(tmp_path: Path) -> None:
    answer = await _answer(tmp_path, "How do I speed up the cooling of the pots after a firing?")
    assert not answer.startswith("Never")


CONTROLLER = """# Kiln controller

## Schedules

The controller stores the last ten firing schedules, so a schedule can be run again with two key presses.

## Power

Never unplug the controller while a firing runs: the firing stops at once and the kiln cools unevenly.

## Loading

Load the tallest pots at the back of each shelf, and leave two finger widths between the pots.
"""


async def test_a_yes_no_question_about_no_risk_opens_with_the_line_that_says_whether(tmp_path: Path) -> None:
    """ "Can it remember my schedules?" is answered by the line saying it stores them; a warning about another
    matter that shares its words is surfaced after it, not before."""
    question = "Can the controller remember my firing schedules so I can run one again?"
    answer = await _answer(tmp_path, question, CONTROLLER)
    assert answer.startswith("The controller stores the last ten firing schedules")
    assert "Never unplug the controller" in answer  # the caveat is still said


async def test_a_question_naming_what_may_go_wrong_opens_with_the_warning(tmp_path: Path) -> None:
    answer = await _answer(tmp_path, "What happens if I unplug the controller during a firing?", CONTROLLER)
    assert "Never unplug the controller" in answer.split("[", 1)[0]


@pytest.mark.parametrize(
    "question",
    [
        "If I unplug the controller during a firing, will anything go wrong?",
        "What happens if I unplug the controller during a firing?",
        "I unplug the controller mid-firing. Is there any catch?",
    ],
)
async def test_asking_what_goes_wrong_is_the_frame_of_a_question_not_a_gap(tmp_path: Path, question: str) -> None:
    """No document need write "wrong", "happens" or "catch" to answer what goes wrong: the warning answers it, and
    the report names no gap for the words that ask."""
    answer = await _answer(tmp_path, question, CONTROLLER)
    assert answer.startswith("Never unplug the controller") and "see Gaps" not in answer
