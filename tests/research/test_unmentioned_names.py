"""A name the documents never write is a gap words alone can prove (``reading.names``, ``synthesis.unmentioned``).

"Is the Brandwerk kiln hotter than mine?" asked of a manual that never writes "Brandwerk" cannot be answered by
it, however near its passages about firing temperatures stand: the part is a gap, named under Gaps, and what
the documents say nearby is shown as near, not as the answer. Small made-up kiln documents.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.models import SubQuestion
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.research.reading.names import names
from deepr_mcp.research.synthesis.report import beliefs_and_gaps, named_once
from deepr_mcp.research.synthesis.unmentioned import neighbours, unmentioned
from tests.research.documents import corpus_of

MANUAL = """# Kiln manual

## Firing temperatures

A bisque firing climbs slowly to 950 degrees so that water and organic matter leave the clay without
cracking it. A glaze firing then goes to 1240 degrees for stoneware.

## Cooling

Let the kiln cool below 100 degrees before opening the lid: opening it hot cracks the pots and can crack
the kiln's elements. Cooling from top temperature takes about a day.

## Loading

Stack shelves on posts of equal height and leave a finger's width between pots so that the heat moves freely.
"""


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return corpus_of(tmp_path, "kiln.md", MANUAL)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Is the Brandwerk kiln hotter than mine?", ["Brandwerk"]),
        ("Can I fire my Raspberry Pi Zero case in it?", ["Raspberry Pi Zero"]),
        ("Which KilnPal setting cools fastest, or should I use my iPhone timer?", ["KilnPal", "iPhone"]),
        ("How hot does a bisque firing get?", []),  # a sentence's capitalised first word is no name
        ("I'm new. Where do I start? Is it hot?", []),  # nor "I" nor the first word of each sentence
        ("Can I list glaze.PNG and glaze.png, or my_Kiln/Log.TXT?", []),  # typed examples, not names
        ("Does Kiln.js read the log?", ["Kiln.js"]),  # a name may hold a dot
        ("Does the Brandwerk run hotter, and does the Brandwerk crack pots?", ["Brandwerk"]),  # each name once
    ],
)
def test_names_are_read_from_the_letters_of_the_question(text: str, expected: list[str]) -> None:
    assert names(text) == expected


def test_a_name_no_passage_writes_is_unmentioned_and_one_that_any_passage_writes_is_not(corpus: Corpus) -> None:
    asked = "Is the Brandwerk kiln hotter than the Stoneware firing in my Kiln manual?"
    assert unmentioned(corpus, asked) == ["Brandwerk"]  # "Stoneware" and "Kiln" are written, in any case
    assert unmentioned(corpus, asked, gathered=["The Brandwerk reaches 1300 degrees."]) == []  # a web source has it


def test_a_name_of_several_words_is_unmentioned_when_they_never_stand_together(corpus: Corpus) -> None:
    """The manual writes "cooling" and "shelves", never next to each other, and "glaze firing" together: the
    "Cooling Shelves" are unmentioned though each of their words is written, a "Glaze Firing" is not."""
    assert unmentioned(corpus, "Do the Cooling Shelves from my supplier fit?") == ["Cooling Shelves"]
    assert unmentioned(corpus, "Does a slower Glaze Firing crack fewer pots?") == []
    # a source gathered from elsewhere that writes the words together mentions the name too
    assert unmentioned(corpus, "Do the Cooling Shelves fit?", gathered=["Cooling shelves are sold apart."]) == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Recycle Bin", [["recycle", "bin"]]),
        ("Windows Task Scheduler", [["windows", "task"], ["task", "scheduler"]]),
        ("Brandwerk", []),  # one word: judged by its word alone
        ("Ctrl-C", []),  # one word written with a hyphen
        ("Python 3", []),  # a version's digit is no word of a name
    ],
)
def test_a_name_is_checked_by_its_neighbouring_words(name: str, expected: list[list[str]]) -> None:
    assert neighbours(name) == expected


def test_a_corpus_that_holds_nothing_or_cannot_count_words_names_nothing(tmp_path: Path) -> None:
    assert unmentioned(Corpus(tmp_path / "empty.db"), "Is the Brandwerk kiln hotter?") == []
    assert unmentioned(object(), "Is the Brandwerk kiln hotter?") == []


async def test_a_question_about_a_name_the_documents_never_write_names_it_under_gaps(corpus: Corpus) -> None:
    state = await Engine(corpus, LocalProvider()).run(new_state("Does the Brandwerk kiln reach glaze temperature?"))
    report = state.report or ""
    gaps = report.split("## Gaps", 1)[1].split("\n## ", 1)[0]
    assert "The documents say nothing about Brandwerk" in gaps
    answer = report.split("## Findings", 1)[0]
    assert "_The documents say nothing about Brandwerk" in answer  # said under the Answer too


async def test_a_name_used_as_context_hedges_the_answer_but_keeps_what_the_documents_say(corpus: Corpus) -> None:
    """The part asks about a name the documents never write, so no passage answers it as asked; the passage
    that does speak to the rest still opens the Answer, under the words that say it is only near."""
    question = (
        "Before opening the lid of my KilnPal kiln, how far below 100 degrees should it cool so the pots do not crack?"
    )
    state = await Engine(corpus, LocalProvider()).run(new_state(question))
    report = state.report or ""
    answer = report.split("## Answer", 1)[1].split("\n## ", 1)[0]
    assert answer.lstrip().startswith("_No passage found clearly answers this question")
    assert "Let the kiln cool below 100 degrees before opening the lid" in answer and "[1]" in answer
    assert [sq.status for sq in state.sub_questions] == ["weak"]
    assert [g.missing for g in state.gaps] == [["KilnPal"]]
    assert "- The documents say nothing about KilnPal (asked: " in report.split("## Gaps", 1)[1]


async def test_the_part_asking_about_an_unwritten_name_is_a_gap_and_the_other_part_is_answered(
    corpus: Corpus,
) -> None:
    """Two asks: the documents answer the first; the second is about a name they never write, so it lists no
    findings of its own, is not "answered above" by the first part's passages, and is named under Gaps."""
    question = "How long does the kiln take to cool from top temperature, and how do I log each firing in KilnPal?"
    state = await Engine(corpus, LocalProvider()).run(new_state(question))
    report = state.report or ""
    cooling, logging = state.sub_questions
    assert cooling.status == "answered" and "about a day" in report.split("## Findings", 1)[0]
    assert logging.status == "unanswered" and not logging.findings and not logging.covered_by
    assert f"### {logging.text}" not in report  # no findings, no "Answered above" under it
    assert len(state.gaps) == 1 and "KilnPal" in state.gaps[0].missing


async def test_a_question_whose_names_the_documents_write_has_no_such_gap(corpus: Corpus) -> None:
    state = await Engine(corpus, LocalProvider()).run(new_state("How hot is a Stoneware glaze firing?"))
    assert not any("Stoneware" in g.missing for g in state.gaps)
    assert "1240 degrees" in (state.report or "")


async def test_a_question_about_a_name_whose_words_never_stand_together_names_it_under_gaps(corpus: Corpus) -> None:
    """Every word of "Cooling Shelves" is in the manual, under other topics: the report does not pass off the
    passages on cooling and on shelves as its answer, it says the documents name no such thing."""
    state = await Engine(corpus, LocalProvider()).run(new_state("Do the Cooling Shelves from my supplier fit?"))
    gaps = (state.report or "").split("## Gaps", 1)[1].split("\n## ", 1)[0]
    line = next(line for line in gaps.splitlines() if line.startswith("- The documents say nothing about"))
    assert "Cooling Shelves" in line
    assert [sq.unmentioned for sq in state.sub_questions] == [["Cooling Shelves"]]  # a gap words alone prove


def test_a_name_spelled_like_fts5_syntax_is_only_words(corpus: Corpus) -> None:
    """Whatever a user types stays words in the phrase query: FTS5's operators, quotes and stars are not syntax."""
    asked = 'Does the Cooling NEAR Shelves AND OR "Glaze* Firing" work?'
    assert unmentioned(corpus, asked) == ["Cooling NEAR Shelves AND OR"]
    assert unmentioned(corpus, "Is the Kiln's Elements Pro' line hot?") == ["Kiln's Elements Pro"]


def test_a_missing_word_inside_an_unwritten_name_is_named_once_by_the_name() -> None:
    state = new_state("Is my Kiln Sentry alarm why the firing software is slow?")
    state.sub_questions = [
        SubQuestion(
            id="q1", text=state.question, status="weak", missing=["Sentry", "slow"], unmentioned=["Kiln Sentry"]
        )
    ]
    _, gaps = beliefs_and_gaps(state)
    assert [g.missing for g in gaps] == [["slow", "Kiln Sentry"]]


def test_a_phrase_another_says_is_named_once() -> None:
    assert named_once(["Kiln Sentry", "Kiln Sentry's", "glaze chart", "Brandwerk Glaze"]) == [
        "Kiln Sentry",
        "glaze chart",
        "Brandwerk Glaze",
    ]
