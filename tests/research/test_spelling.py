"""A word the documents spell another way is no gap (``reading.spelling``, ``synthesis.coverage``).

"What colour does the glaze turn?" asked of a manual that writes "color" is answered by it: the words judge
must not name "colour" under Gaps. A word the documents write in no spelling still is one. Small made-up
glaze documents.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.research.reading.spelling import respellings, spelt_otherwise
from deepr_mcp.research.synthesis.coverage import TermCoverage
from tests.research.documents import corpus_of

MANUAL = """# Glaze notes

## Celadon

A celadon glaze fired in reduction turns a pale green color, because the iron in it is reduced; fired in
oxidation the same glaze comes out a dull amber. Apply it thin on porcelain for the clearest color.

## Cooling behavior

The glaze's behavior while cooling decides its surface: a slow cool from the peak grows crystals and a
matte surface, a fast cool keeps it glossy. Measure the cooling at the center of the kiln chamber.
"""


@pytest.mark.parametrize(
    ("asked", "written"),
    [
        ("colour", "color"),  # a vowel more
        ("color", "colour"),  # a vowel less
        ("centre", "center"),  # two letters swapped
        ("initialise", "initialize"),  # "s" for "z"
        ("travelling", "traveling"),  # a doubled consonant
        ("traveling", "travelling"),
    ],
)
def test_one_step_between_two_spellings_of_a_word(asked: str, written: str) -> None:
    assert written in respellings(asked) and spelt_otherwise(asked, {"glaze", written})


@pytest.mark.parametrize(
    ("asked", "written"),
    [
        ("butter", "better"),  # a vowel swapped for another makes another word
        ("grate", "great"),  # two swaps away
        ("form", "from"),  # too short to tell a spelling from another word
        ("colour", "colours"),  # a plural is another word to spelling (stems already meet)
    ],
)
def test_other_words_are_not_respellings(asked: str, written: str) -> None:
    assert not spelt_otherwise(asked, {written})


def test_the_words_judge_finds_no_silence_in_a_word_the_evidence_spells_another_way() -> None:
    passages = MANUAL.split("\n\n")[1:]
    judged = TermCoverage().judge("What colour is celadon?", passages, passages)
    assert judged.answered and judged.missing == []
    silent = TermCoverage().judge("How loud is the noise of a celadon firing?", passages, passages)
    assert not silent.answered and "noise" in " ".join(silent.missing)  # no spelling of "noise" in them


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return corpus_of(tmp_path, "glaze.md", MANUAL)


@pytest.mark.parametrize(
    "question",
    [
        "What colour is celadon?",
        "How do I get a clear colour on porcelain?",
    ],
)
async def test_a_report_names_no_gap_for_a_word_the_documents_spell_another_way(corpus: Corpus, question: str) -> None:
    state = await Engine(corpus, LocalProvider()).run(new_state(question))
    assert state.gaps == [] and "## Gaps" not in (state.report or "")
    assert all(sq.status == "answered" for sq in state.sub_questions)
