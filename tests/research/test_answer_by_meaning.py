"""The direct answer weighs each finding's closeness in meaning to the question, not only its share of the
question's words: the user asks in their words, and the lines that answer are often in the documents'.
Synthetic findings; the closeness values stand for the embedder's cosines."""

from __future__ import annotations

from deepr_mcp.research.providers.base import AnswerRequest, StatedFinding
from deepr_mcp.research.providers.local_answer import answer_text
from deepr_mcp.research.reading.analysis import analyse

QUESTION = "How do I stop the water pipes from freezing while I am away in winter?"
ECHOES = (
    "Water pipes in winter are covered in the chapter on trips away from home.",
    "Freezing water pipes are a common winter worry when you are away.",
    "While you are away in winter, the water pipes are out of sight.",
)
"""Lines holding most of the question's words that say nothing of what to do."""
ANSWERS = (
    "Set the thermostat's holiday mode to 12 degrees before you leave.",
    "The holiday mode keeps the plumbing above zero without heating the house fully.",
)


def request(close: bool) -> AnswerRequest:
    found = [StatedFinding(line, (n,), None, 0.3 if close else None) for n, line in enumerate(ECHOES, start=1)]
    closeness = zip(ANSWERS, (0.74, 0.71), strict=True)
    found += [StatedFinding(line, (n,), None, c if close else None) for n, (line, c) in enumerate(closeness, start=4)]
    return AnswerRequest(QUESTION, analyse(QUESTION), ((QUESTION, tuple(found)),), ())


def test_the_lines_closest_in_meaning_answer_and_open_it() -> None:
    answer = answer_text(request(close=True))
    assert answer.startswith(ANSWERS[0]), answer
    assert ANSWERS[1] in answer, answer  # the second close line too, not a third echo of the question's words


def test_without_an_embedder_the_words_decide() -> None:
    answer = answer_text(request(close=False))
    assert answer.startswith(ECHOES[0]) and ANSWERS[1] not in answer, answer


TMPNAME = "Why is spool.tmpname() considered unsafe, and what should I call instead?"
TMPNAME_LINES = (
    ("`spool.tmpname(suffix='', prefix='tmp')` Deprecated since version 2.3: Use reserve() instead.", 0.52),
    ("Warning: Calling this function can expose your program to an attack by another user.", 0.71),
    ("`class kiln.GlazeEnum` GlazeEnum uses the name() of Enum but the colour() of the mixed-in glaze.", 0.10),
)


def tmpname_request(close: bool) -> AnswerRequest:
    found = tuple(StatedFinding(line, (n,), None, c if close else None) for n, (line, c) in enumerate(TMPNAME_LINES, 1))
    return AnswerRequest(TMPNAME, analyse(TMPNAME), ((TMPNAME, found),), ())


def test_with_meaning_measured_a_line_need_not_name_the_code_the_question_spells() -> None:
    answer = answer_text(tmpname_request(close=True))
    assert TMPNAME_LINES[1][0] in answer, answer  # the warning names neither spool nor tmpname
    assert "GlazeEnum" not in answer  # far in meaning: left under its sub-question


def test_without_meaning_the_named_code_still_decides() -> None:
    answer = answer_text(tmpname_request(close=False))
    assert TMPNAME_LINES[1][0] not in answer and TMPNAME_LINES[0][0].split(")` ")[1] in answer, answer


KILN = "How do I stop the kiln lid from cracking the glaze while it cools?"
KILN_FIRST = "Leave the kiln lid shut until the glaze has cooled below 150 degrees."
"""The findings step ranked this first, with its passage in view: the answer, in few of the question's words."""
KILN_CLOSE = (
    "Glaze cracking while a kiln cools is called crazing, and a lid opened early is one cause of it among several.",
    "Cooling a kiln with its lid cracked open lets cold air reach the glaze and may crack it as it cools.",
    "A kiln that cools quickly stresses the glaze, and a cracked lid makes the kiln cool quickly.",
    "The glaze on the kiln's top shelf cools first when the lid is lifted, and cracks there most often.",
)
"""Lines close in meaning to the question that fill the answer's budget without saying what to do."""


def kiln_request() -> AnswerRequest:
    found = [StatedFinding(KILN_FIRST, (1,), None, 0.35)]
    found += [StatedFinding(line, (n,), None, 0.8) for n, line in enumerate(KILN_CLOSE, start=2)]
    return AnswerRequest(KILN, analyse(KILN), ((KILN, tuple(found)),), ())


def test_the_findings_steps_first_line_is_said_beside_the_closest_ones() -> None:
    answer = answer_text(kiln_request())
    assert KILN_FIRST in answer, answer  # beyond the word budget the closest lines filled
    assert answer.startswith(KILN_CLOSE[0]) or answer.startswith(KILN_CLOSE[1]), answer  # the closest still opens
