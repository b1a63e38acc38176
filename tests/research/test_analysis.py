"""Question analysis: each question type is recognised and planned as grammatical sub-questions."""

from __future__ import annotations

import re

import pytest

from deepr_mcp.research.reading.analysis import analyse, clauses, is_safety_sub_question, sub_questions

CASES = [
    ("How do I safely extract a tar archive against path traversal?", "how_to", True),
    ("Should I use functools.lru_cache or functools.cache?", "comparison", False),
    ("What is the difference between a list and a tuple?", "comparison", False),
    ("Why does asyncio.run() fail when an event loop is already running?", "why", False),
    ("What is a context variable?", "definition", False),
    ("In which version was asyncio.TaskGroup added?", "version", False),
    ("When was the walrus operator added to Python?", "version", False),
    ("Is it safe to unpickle data from an untrusted source?", "how_to", True),
    ("subprocess shell=True security", "general", True),
]


@pytest.mark.parametrize(("question", "kind", "safety"), CASES)
def test_each_type_is_recognised(question: str, kind: str, safety: bool) -> None:
    analysis = analyse(question)
    assert (analysis.type, analysis.safety) == (kind, safety)


@pytest.mark.parametrize(("question", "kind", "safety"), CASES)
def test_sub_questions_are_grammatical_questions_without_pasted_templates(
    question: str, kind: str, safety: bool
) -> None:
    planned = sub_questions(analyse(question), 5)
    assert 1 <= len(planned) <= 5
    assert len({q.lower() for q in planned}) == len(planned)
    for q in planned[1:]:
        assert q.endswith("?") and q[0].isupper(), q
        assert re.match(r"^(What|Which|How|When|Why|Is|In which)\b", q), q
        # the old templates pasted the whole question into a facet ("describe I use functools...")
        assert " I " not in q and "?" not in q[:-1], q


def test_how_to_splits_action_and_concern() -> None:
    analysis = analyse("How do I safely extract a tar archive against path traversal?")
    assert analysis.action == "extract a tar archive"
    assert analysis.concern == "path traversal"
    planned = sub_questions(analysis, 5)
    assert "What does the documentation warn about when you extract a tar archive?" in planned
    assert "How can you protect against path traversal when you extract a tar archive?" in planned
    assert is_safety_sub_question(planned[2], analysis)
    assert not is_safety_sub_question("Which functions or methods are used to extract a tar archive?", analysis)


def test_comparison_asks_about_each_side_and_the_difference() -> None:
    analysis = analyse("Should I use functools.lru_cache or functools.cache?")
    assert analysis.entities[:2] == ["functools.lru_cache", "functools.cache"]
    planned = sub_questions(analysis, 5)
    assert planned[1:4] == [
        "What does functools.lru_cache do?",
        "What does functools.cache do?",
        "How do functools.lru_cache and functools.cache differ?",
    ]


def test_compound_questions_are_planned_by_their_parts() -> None:
    question = "Why did the first transatlantic telegraph cable fail, and how are cable faults repaired today?"
    assert clauses(question) == [
        "Why did the first transatlantic telegraph cable fail?",
        "How are cable faults repaired today?",
    ]
    planned = sub_questions(analyse(question), 5)
    assert planned[:2] == clauses(question)


@pytest.mark.parametrize("question", ["", "???", "a", "x" * 3000, "what", "how do i"])
def test_odd_input_never_fails(question: str) -> None:
    analysis = analyse(question)
    planned = sub_questions(analysis, 3)
    assert len(planned) <= 3 and all(q.strip() for q in planned)


@pytest.mark.parametrize(
    ("question", "action"),
    [
        (
            "What should I watch out for when extracting a zip file from the internet?",
            "extracting a zip file from the internet",
        ),
        ("What are the pitfalls of using threads with fork?", "using threads with fork"),
        ("What do I need to consider before deleting a directory tree?", None),
    ],
)
def test_pitfall_questions_are_how_tos_that_surface_warnings(question: str, action: str | None) -> None:
    analysis = analyse(question)
    if action is None:  # not a pitfall phrasing the analysis knows: it stays general, and no error
        assert analysis.type in ("general", "how_to")
        return
    assert (analysis.type, analysis.safety, analysis.action) == ("how_to", True, action)
    planned = sub_questions(analysis, 5)
    assert f"What does the documentation warn about when {action}?" in planned
    for q in planned[1:]:  # the gerund is kept grammatical: never "when you extracting"
        assert " you " + action.split()[0] not in q and " to " + action.split()[0] not in q, q


def test_a_later_clause_names_what_it_refers_to() -> None:
    planned = sub_questions(analyse("In which version was the walrus operator added and what does it do?"), 5)
    assert planned[:2] == ["In which version was the walrus operator added?", "What does the walrus operator do?"]
    # a clause that names its own subject is left alone
    planned = sub_questions(analyse("What is asyncio.run() and what does asyncio.gather() return?"), 5)
    assert "What does asyncio.gather() return?" in planned


def test_general_topics_do_not_start_with_the_asker() -> None:
    planned = sub_questions(analyse("What should I know about the GIL?"), 5)
    assert all(" I " not in q for q in planned[1:]), planned


def test_a_version_question_about_a_behaviour_is_planned_as_grammatical_questions() -> None:
    analysis = analyse("Since which version do dictionaries preserve insertion order?")
    assert analysis.type == "version" and not analysis.entities
    assert analysis.action == "dictionaries preserve insertion order"
    planned = sub_questions(analysis, 5)
    assert planned[1:] == [
        "Which version notes say that dictionaries preserve insertion order?",
        "What does the documentation say about how dictionaries preserve insertion order?",
    ]
    assert not any("the dictionaries preserve" in q for q in planned)  # was "What is the dictionaries preserve ...?"
    # a thing, not a behaviour, keeps the thing's questions
    thing = sub_questions(analyse("Which Python version added functools.cache?"), 5)
    assert thing[-1] == "What does functools.cache do?"


def test_an_aside_in_parentheses_is_left_out_of_a_version_questions_sub_questions() -> None:
    planned = sub_questions(analyse("When was structural pattern matching (the match statement) introduced?"), 5)
    assert planned[1] == "In which version was the structural pattern matching added or changed?"
    assert not any("( " in q for q in planned)
