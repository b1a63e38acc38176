"""Findings about what was asked: the year the question names, the task a how-to asks, a warning
that warns about the topic. Each rule is a reader's objection to a line a report used to print.
"""

from __future__ import annotations

import pytest

from deepr_mcp.research.synthesis.relevance import (
    answers,
    ask_of_question,
    dangling,
    names_action,
    off_task,
    other_action,
    other_year,
    relevant,
    stray_change_note,
    years,
)
from tests.research.requests import local_findings

Q1858 = "How was the 1858 transatlantic telegraph cable laid and why did it fail?"


def test_years_and_decades() -> None:
    assert years("laid in 1858, repaired 1866") == {1858, 1866}
    assert 1858 in years("By the 1850s telegraph lines crossed Europe")
    assert years("Python 3.11 and version 3.8, 250 ms, 12 files") == set()


@pytest.mark.parametrize(
    ("text", "heading", "off"),
    [
        ("The Great Eastern was launched in 1858.", "The lasting cable of 1866 > A ship big enough", True),
        ("After the failure of 1858 the company tried again.", "The lasting cable of 1866", True),
        ("In 1929 an earthquake broke twelve cables.", "Faults and repair > Earthquakes", True),
        ("TAT-1, laid in 1956, carried telephone calls.", "Telephone cables", True),
        ("The insulation broke down within weeks.", "The first cable (1858) > Why it failed", False),
        ("Its core held seven copper wires.", "Laying the cable", False),
        ("By the 1850s lines crossed Europe.", "Why a cable under the Atlantic", False),
        ("The cable of 1866 learned from it.", "The first cable (1858) > Legacy", False),
    ],
)
def test_a_claim_about_another_year_than_asked_is_off_subject(text: str, heading: str, off: bool) -> None:
    assert other_year(Q1858, text, heading) is off


def test_a_question_naming_no_year_asks_about_none_in_particular() -> None:
    assert not other_year("Why did the first transatlantic cable fail?", "In 1929 cables broke.", "Faults (1929)")


@pytest.mark.parametrize(
    ("text", "off"),
    [
        ("If you want to build a new cargo crate, specify its label after the -c option.", True),
        ("How to build an unlabelled cargo crate from a list of part numbers:", True),
        ("To list the parts of a cargo crate, use the -l option.", True),
        ("If you want to unpack a cargo crate onto the current bay, use the -e option.", False),
        ("To avoid crowbar injuries, check each lid's nails before unpacking.", False),
        ("Use the strap argument to refuse parts outside the pallet.", False),
        ("To build the shelf first and then unpack onto it, pass bay.", False),  # names the task too
    ],
)
def test_a_recipe_for_another_task_does_not_answer_a_how_to(text: str, off: bool) -> None:
    assert other_action("unpack a cargo crate", text) is off


WARN = "What are the risks of unpacking a cargo crate?"
TOPIC = {"unpack", "cargo", "crate", "crowbar", "injuri"}
"""The words of an invented how-to with a safety concern: unpacking a cargo crate without crowbar injuries."""


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("`class cratebox.Crate` Class for reading cargo crates. Do not use this class directly: use open().", False),
        ("Warning: See the warning for `unpackall()`.", False),
        ("Warning: Never unpack crates that strangers send before you look inside them.", True),
        ("And, if a bay's racks do not allow loading, unpacking parts onto it will fail.", True),
        ("Warning: The yarn swift is insecure by design.", True),  # a harm is a warning whatever it names
    ],
)
def test_a_warning_must_warn_about_the_topic_not_merely_sit_beside_it(text: str, kept: bool) -> None:
    assert answers(ask_of_question(WARN), text, None, TOPIC) is kept
    assert answers(ask_of_question(WARN), text)  # without the topic, any cue still counts


def test_relevant_applies_every_rule_when_the_question_is_given() -> None:
    sub = "How do I unpack a cargo crate?"
    create = "If you want to build a new cargo crate, specify its label after the -c option."
    question = "How do I unpack a cargo crate?"
    assert relevant(sub, create, "cratebox > Command-Line Interface", TOPIC)  # no question: old floor
    assert not relevant(sub, create, "cratebox", TOPIC, question=question, action="unpack a cargo crate")
    ship = "No single ship could carry it, so two warships each carried half."
    assert relevant("How was it laid?", ship, "The first cable (1858) > Laying", {"cabl", "laid"}, question=Q1858)
    assert not relevant("How was it laid?", ship, "The cable of 1866 > Laying", {"cabl", "laid"}, question=Q1858)


def test_the_local_provider_leaves_out_another_years_event_and_another_task() -> None:
    passages = [
        (1, "cables.md, The first cable (1858) > Laying the cable", "Two warships each carried half of the cable."),
        (2, "cables.md, The lasting cable of 1866 > The ship", "The Great Eastern carried the whole cable in 1866."),
    ]
    found = local_findings(
        "How was the 1858 transatlantic telegraph cable laid?",
        passages,
        question=Q1858,
        key_terms=["1858", "transatlantic", "telegraph", "cable", "laid"],
    )
    assert "warships" in found and "Great Eastern" not in found
    crates = [
        (1, "cratebox.html, cratebox > CLI", "If you want to build a new cargo crate, use the -c option: crate -c x."),
        (2, "cratebox.html, cratebox > CLI", "If you want to unpack a cargo crate, use the -e option: crate -e x."),
    ]
    found = local_findings("How do I unpack a cargo crate?", crates, key_terms=["unpack", "cargo", "crate"])
    assert "-e option" in found and "-c option" not in found


def test_sentences_going_on_with_a_recipe_for_another_task_belong_to_it() -> None:
    sentences = [
        "If you want to build a new cargo crate, specify its label after the -c option:",
        "Passing a shelf is also acceptable:",
        "If you want to unpack a cargo crate onto the current bay, use the -e option:",
        "You can also unpack a cargo crate onto a different bay by passing its name:",
    ]
    assert off_task("unpack a cargo crate", sentences) == {0, 1}
    assert off_task("", sentences) == set()  # not a how-to: no task to keep to


def test_the_question_itself_takes_any_statement_that_names_its_task() -> None:
    question = "How do I safely unpack a cargo crate without crowbar injuries?"
    pun = "Crowbar injuries are treated with the first-aid kit or by the nurse."
    assert not names_action("unpack a cargo crate", pun)  # shares only the concern's words
    assert names_action("unpack a cargo crate", "Note: The unpack() method does not take care of several issues.")
    assert not relevant(
        question, pun, "first aid > Crowbar injuries", TOPIC, question=question, action="unpack a cargo crate"
    )
    assert relevant(question, pun, "first aid > Crowbar injuries", TOPIC)  # without the question: the old floor


def test_an_introduction_needs_what_it_introduces() -> None:
    assert dangling("On Windows, run:", None) and not dangling("On Windows, run:", "venv\\Scripts\\activate")
    assert not dangling("Cargo crates hold parts.", None)
    assert not relevant("How do I unpack a cargo crate?", "Pass the bay option to choose a shelf:", "cratebox", TOPIC)


def test_a_version_note_answers_only_a_question_about_versions() -> None:
    note = "Changed in version 3.2: Added the set_attrs parameter."
    how = "How do I safely unpack a cargo crate?"
    assert stray_change_note(note, how, "Which options or parameters change how you unpack a cargo crate?")
    assert not stray_change_note(note, "In which version was set_attrs added?", "In which version was it added?")
    assert not stray_change_note("Deprecated since version 2.3: Use crate.pry() instead.", how, how)  # a warning
    assert not relevant(how, note, "crates > Crate.unpack", TOPIC, question=how, action="unpack a cargo crate")


def test_a_warning_is_not_glued_to_the_version_note_after_it() -> None:
    from deepr_mcp.research.providers.local import whole_warnings
    from deepr_mcp.research.synthesis.claims import units

    found = whole_warnings(units("Warning: See the warning for unpackall(). Changed in version 3.2: Added set_attrs."))
    assert [u.text for u in found] == [
        "Warning: See the warning for unpackall().",
        "Changed in version 3.2: Added set_attrs.",
    ]
