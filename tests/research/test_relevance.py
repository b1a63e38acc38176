"""The relevance floor: a finding is on the topic asked and is a statement, or the report names a gap.

The documents here are a small, made-up kiln manual: each filler sentence shares words with the
question ("kiln", "lid") and answers nothing about it.
"""

from __future__ import annotations

import pytest

from deepr_mcp.research.providers import prompts
from deepr_mcp.research.synthesis.relevance import answers, ask_of_question, pointer, relevant
from tests.research.requests import local_findings

QUESTION = "How do I safely cool a glaze kiln without cracking the shelves?"
TOPIC = {"cool", "glaze", "kiln", "crack", "shelv"}

WARNING = (
    "Warning: Never open the kiln lid above 200 degrees while you cool a glaze load. The shelves crack "
    "from thermal shock."
)
VENT = "The vent plug of the kiln is made of fired clay and is sold as a spare part."
OTHER_TASK = "If you want to load a kiln, stack the shelves on three posts each."
PASSWORD = "Warning: never share the password of your controller account."


def test_off_topic_is_never_relevant_whatever_its_form() -> None:
    assert relevant(QUESTION, WARNING, "kiln.md > Cooling", TOPIC)
    assert not relevant(QUESTION, PASSWORD, "accounts", TOPIC)  # a warning, about something else
    assert not relevant(QUESTION, WARNING, "kiln.md", set())  # nothing wanted: nothing is on topic


def test_the_local_provider_prints_no_filler() -> None:
    passages = [
        (1, "kiln.md, Kiln > Spare parts", VENT),
        (2, "kiln.md, Kiln > Loading", OTHER_TASK),
        (3, "kiln.md, Kiln > Cooling", WARNING),
    ]
    found = local_findings(QUESTION, passages, key_terms=["cool", "glaze", "kiln", "cracking", "shelves"])
    assert "Never open the kiln lid" in found
    assert "vent plug" not in found and "stack the shelves" not in found  # no task of its own, another task
    assert local_findings(QUESTION, passages[1:2], key_terms=["cool", "kiln"]) == prompts.NO_EVIDENCE


@pytest.mark.parametrize(
    ("question", "narrowed"),
    [
        ("What must I watch out for when cooling a glaze kiln?", True),
        ("What are the risks of opening a hot kiln?", True),
        (QUESTION, False),  # how to do it safely: the how is an answer too
        ("Why does the glaze crawl on the pot?", False),  # asks why, not for warnings
        ("What is a glaze?", False),
    ],
)
def test_the_question_is_narrowed_to_warnings_only_when_it_asks_about_dangers(question: str, narrowed: bool) -> None:
    ask = ask_of_question(question)
    plain = "The controller lowers the kiln temperature by 100 degrees an hour when it cools a glaze load."
    assert answers(ask, WARNING)
    assert answers(ask, plain) is not narrowed


def test_a_sentence_opening_with_a_conjunction_is_read_with_the_one_before() -> None:
    passage = (
        "Let the kiln cool with the lid closed until it is below 100 degrees. This protects the glaze and "
        "the shelves from two problems: A glaze cools unevenly near an open lid. And, if the shelves cool "
        "faster than the posts, the shelves crack."
    )
    out = local_findings(QUESTION, [(1, "kiln.md, Kiln > Cooling", passage)], key_terms=["cool", "kiln", "shelves"])
    assert "- And," not in out  # never half a statement on its own


def test_a_sentence_that_only_points_elsewhere_is_no_finding() -> None:
    for text in (
        "See the description of the controller for information on these programs.",
        "See also Firing schedules.",
        "This section shows recipes and best practices for glazes.",
        "The following sections describe the firing programs in more detail.",
        "For more details on the format, see the appendix.",
    ):
        assert pointer(text), text
    assert not pointer("Seeing that glazes run, a catch plate is used.")
    passage = (
        "See the Firing section for more details about cooling a glaze kiln. Never open the kiln lid above "
        "200 degrees while you cool a glaze load."
    )
    out = local_findings(QUESTION, [(1, "kiln.md, Kiln > Cooling", passage)], key_terms=["cool", "glaze", "kiln"])
    assert "Never open the kiln lid" in out and "See the Firing" not in out
