"""Question analysis: the type of a question, and the parts it really has (nothing added)."""

from __future__ import annotations

import pytest

from deepr_mcp.research.reading.analysis import analyse, clauses, context_of, sub_questions, warns

CASES = [
    ("How do I safely cool a glaze kiln without cracking the shelves?", "how_to", True),
    ("Should I use a chain whip or a lockring tool?", "comparison", False),
    ("What are the differences between a stoneware glaze and an earthenware glaze?", "comparison", False),
    ("Why does the glaze crawl on the rim?", "why", False),
    ("What is a cone pack?", "definition", False),
    ("Is it safe to open a kiln at 300 degrees?", "how_to", True),
    ("How efficient are heat pumps in cold climates compared with gas boilers?", "comparison", False),
]
TEMPLATES = ("Which functions", "Which options", "What example", "warn about", "caveats of", "risks or warnings")


@pytest.mark.parametrize(("question", "kind", "safety"), CASES)
def test_each_type_is_recognised(question: str, kind: str, safety: bool) -> None:
    analysis = analyse(question)
    assert (analysis.type, analysis.safety) == (kind, safety)


@pytest.mark.parametrize(
    "question",
    [
        "How do I safely cool a glaze kiln without cracking the shelves?",
        "Why does the glaze crawl on the rim?",
        "What is a cone pack?",
        "Is it safe to open a kiln at 300 degrees?",
        "What must I watch out for when firing a kiln indoors?",
        "When was the cone 6 firing schedule introduced?",
        "kiln shelf wash recipe",
    ],
)
def test_a_question_with_one_part_is_planned_as_itself(question: str) -> None:
    planned = sub_questions(analyse(question), 5)
    assert planned == [question if question.endswith("?") else question + "?"]


def test_a_comparison_of_two_things_asks_about_each_side() -> None:
    question = "What are the differences between a stoneware glaze and an earthenware glaze?"
    planned = sub_questions(analyse(question), 5)
    assert planned == [question, "What is a stoneware glaze?", "What is an earthenware glaze?"]


def test_a_clause_compared_with_a_thing_is_asked_of_each_side() -> None:
    question = "How efficient are heat pumps in cold climates compared with gas boilers?"
    analysis = analyse(question)
    assert analysis.entities[:2] == ["heat pumps", "gas boilers"]
    assert sub_questions(analysis, 5) == [
        question,
        "How efficient are heat pumps in cold climates?",
        "How efficient are gas boilers in cold climates?",
    ]


def test_a_side_that_is_itself_a_question_is_not_asked_what_it_is() -> None:
    """No "What is Which shelf should ...?": a side that is a clause leaves the question whole."""
    question = "Which shelf should my cone 6 pots go on, versus my bisque tiles?"
    analysis = analyse(question)
    assert analysis.type == "comparison"
    planned = sub_questions(analysis, 5)
    assert planned == [question]
    assert not any(q.startswith(("What is Which", "What are my")) for q in planned)


def test_compound_questions_are_planned_by_their_parts_and_nothing_else() -> None:
    question = "Why did the first kiln firing fail, and how are cracked shelves repaired today?"
    assert clauses(question) == ["Why did the first kiln firing fail?", "How are cracked shelves repaired today?"]
    planned = sub_questions(analyse(question), 5)
    assert planned == clauses(question)
    assert not any(t in q for q in planned for t in TEMPLATES)


def test_a_later_clause_names_what_it_refers_to() -> None:
    planned = sub_questions(analyse("What is a cone pack and how do I read it?"), 5)
    assert planned == ["What is a cone pack?", "How do I read a cone pack?"]


def test_a_clause_that_only_says_what_happened_is_no_part() -> None:
    """Split at ", but when" only where the text before asks: a statement of what happened is the question's
    setting, and as a part of its own it would be searched for and could be named as a gap nobody asked about."""
    question = "I glazed a set of mugs, but when I fired them the glaze ran onto the shelf. Why?"
    assert clauses(question) == [question]
    assert sub_questions(analyse(question), 5) == [question]
    asked = "If I open the kiln early, will the pots crack, and how long should I wait?"
    assert clauses(asked) == ["If I open the kiln early, will the pots crack?", "How long should I wait?"]
    assert len(clauses("In which year was cone 6 introduced and what does it mean?")) == 2


def test_a_clause_ending_its_own_sentence_is_asked_once() -> None:
    """Split before "And ..." after a sentence's end: the part keeps one question mark, not the sentence's and
    another ("tag??", "day.?" in the report's headings)."""
    assert clauses("Can the kiln fire twice a day? And how long does it take to cool?") == [
        "Can the kiln fire twice a day?",
        "How long does it take to cool?",
    ]
    assert clauses("Can the kiln fire twice a day. And how long does it take to cool?")[0] == (
        "Can the kiln fire twice a day?"
    )


def test_they_after_two_things_names_both_and_a_relative_that_is_no_pronoun() -> None:
    question = "Should I use a chain whip or a lockring tool, and can they scratch the cassette?"
    planned = sub_questions(analyse(question), 5)
    assert planned[-1] == "Can a chain whip and a lockring tool scratch the cassette?"
    planned = sub_questions(analyse("What is a cone pack, and how do I leave out the cones that bend early?"), 5)
    assert planned == ["What is a cone pack?", "How do I leave out the cones that bend early?"]


def test_what_a_thing_is_for_names_the_thing_not_the_for() -> None:
    question = "What is that big kiln log book good for, and should I keep it by the kiln?"
    analysis = analyse(question)
    assert analysis.type == "definition" and analysis.entities[0] == "that big kiln log book"
    assert sub_questions(analysis, 4) == [
        "What is that big kiln log book good for?",
        "Should I keep that big kiln log book by the kiln?",
    ]
    assert analyse("What is the cone pack used for?").entities[0] == "the cone pack"
    assert analyse("What is a cone pack for?").entities[0] == "a cone pack"
    assert analyse("What is the best glaze for stoneware?").entities[0] == "the best glaze for stoneware"


def test_a_compared_side_ends_with_its_sentence() -> None:
    analysis = analyse("Should I fire with gas or with wood? Which is cheaper?")
    assert analysis.type == "comparison" and analysis.entities[:2] == ["with gas", "with wood"]


@pytest.mark.parametrize("question", ["", "???", "a", "x" * 3000, "what", "how do i"])
def test_odd_input_never_fails(question: str) -> None:
    analysis = analyse(question)
    planned = sub_questions(analysis, 3)
    assert len(planned) <= 3 and all(q.strip() for q in planned)


@pytest.mark.parametrize(
    "question", ["What must I watch out for when firing a kiln indoors?", "What are the pitfalls of glazing a foot?"]
)
def test_pitfall_questions_are_about_safety(question: str) -> None:
    assert analyse(question).safety  # the words of risk, whatever the question's form


def test_two_sides_sharing_their_stems_are_both_kept() -> None:
    # "tidied" and "tidy" stem alike, so each side's words are the other's: still two things compared
    parts = sub_questions(analyse("Should I use tidied(pile) or pile.tidy()? Does it make any difference?"), 5)
    assert parts[1:] == ["What does tidied(pile) do?", "What does pile.tidy() do?"]


@pytest.mark.parametrize(
    "question",
    [
        "If I open the kiln lid at 600 degrees, will the pots crack?",
        "Can I fire greenware and glazed pots in the same load?",
        "My kiln sits in the garage. Will the cold harm it in winter?",
        "Is that fine, or should I vent the room as well?",
        "What happens if the power fails halfway through a firing?",
        "I stack shelves three high. Is there any catch?",
    ],
)
def test_a_question_whether_something_holds_or_goes_wrong_surfaces_warnings(question: str) -> None:
    # users ask about risk with a yes/no question far more often than with a word for it
    assert warns(analyse(question))


@pytest.mark.parametrize(
    ("question", "safety", "whether"),
    [
        ("If I open the kiln lid at 600 degrees, will the pots crack?", False, True),
        ("Can the controller remember my last firing schedule?", False, True),
        ("What happens if the power fails halfway through a firing?", True, False),
        ("I stack shelves three high. Is there any catch?", True, True),
        ("Is it safe to fire a kiln in the garage?", True, True),
        ("How do I safely unload a hot kiln?", True, False),
    ],
)
def test_a_yes_no_question_is_told_from_one_naming_a_risk(question: str, safety: bool, whether: bool) -> None:
    """Warnings lead the answer to a question naming a risk ("safely", "what happens if"); a yes/no question's
    warnings are surfaced too, and lead only when they answer it best."""
    analysis = analyse(question)
    assert (analysis.safety, analysis.whether) == (safety, whether)


@pytest.mark.parametrize(
    "question",
    [
        "Should I use a chain whip or a lockring tool?",  # an alternative question asks which, not whether
        "How do I load a kiln?",
        "Why does the glaze crawl on the rim?",
        "What is a cone pack?",
        "Which shelf holds the heaviest pots?",
    ],
)
def test_questions_asking_which_how_or_why_are_not_about_risk(question: str) -> None:
    assert not warns(analyse(question))


def test_a_later_part_that_refers_back_is_read_with_the_clause_before_it() -> None:
    analysis = analyse("Why does the kiln fan roar during a firing, and can I turn it down?")
    first, later = sub_questions(analysis, 5)
    assert context_of(later, analysis) == "Why does the kiln fan roar during a firing?"
    assert context_of(first, analysis) == ""  # the first clause refers back to nothing
    alone = analyse("How do I glaze a mug, and how do I fire a plate?")
    assert [context_of(part, alone) for part in sub_questions(alone, 5)] == ["", ""]  # no word points back
    assert context_of("How do I stop it?", analyse("How do I stop it?")) == ""  # one clause: nothing before it


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        # a purpose clause after the right side is said of both sides
        (
            "Should I log the heat with kiln.read() or kiln.poll() to watch a firing?",
            ["What does kiln.read() do?", "What does kiln.poll() do?"],
        ),
        # a one-word right side pairs with the name the left side ends on
        (
            "Should I look the cone up in a chart with table[cone] or table.get(cone)?",
            ["What is table[cone]?", "What does table.get(cone) do?"],
        ),
        (
            "Should I keep glaze notes in a paper notebook or spreadsheets?",
            ["What is a paper notebook?", "What are spreadsheets?"],
        ),
        # the question's verb said again on the right is said of both sides; a focusing adverb stands before one
        ("Should I use a slip or use a glaze?", ["What is a slip?", "What is a glaze?"]),
        ("Should I use cone packs or just pyrometers?", ["What are cone packs?", "What are pyrometers?"]),
    ],
)
def test_the_sides_of_a_choice_are_the_things_chosen_between(question: str, parts: list[str]) -> None:
    assert sub_questions(analyse(question), 5) == [question, *parts]


@pytest.mark.parametrize(
    "question",
    [
        # "or" inside a purpose clause joins its objects: no choice of things, no "What are glazes?" part
        "Should I use the mixer to blend slips or glazes?",
        # "A, or will B?" asks whether, with an alternative outcome
        "Can I stack the shelves while the kiln is warm, or will they crack?",
        "Can I just fire the bisque once, or is there a better way?",
        # a right side opening with a preposition: two ways or places of doing one thing, no "What is in ...?"
        "Should I fire the mugs in the big kiln or just in the small one?",
        "Should I install the controller for the whole studio or only inside my own room?",
        # a right side opening with a verb and its object: two courses of action, no "What is write them ...?"
        "Should I keep glaze notes in a binder, or just write them on the pot?",
        "Should I buy a kiln or just rent one?",
    ],
)
def test_an_or_that_offers_no_choice_of_things_adds_no_parts(question: str) -> None:
    analysis = analyse(question)
    assert analysis.type != "comparison"
    assert sub_questions(analysis, 5) == [question]
