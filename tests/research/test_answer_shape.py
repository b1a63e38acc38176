"""The answer opens with a sentence that answers, never with a line that is no sentence: a reference
entry's field list ("Default: false Type: Boolean"), a heading or list item that lost its layout, a row
of names. What kind of text a line is comes from its shape alone.

The findings are a made-up kiln-controller reference, as the engine hands them to the local provider.
"""

from __future__ import annotations

from deepr_mcp.research.providers.base import AnswerRequest, StatedFinding
from deepr_mcp.research.providers.local_answer import answer_text
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.synthesis.shape import field_run, fields_last, is_sentence, without_fields

QUESTION = "How do I make the kiln refuse to start a firing when the cone pack is missing?"
FIELDS = (
    "Default: false Type: Boolean If set to true, the kiln refuses to start a firing whose program names no cone pack."
)
ONLY_FIELDS = 'Default: "cone 6" Type: String'
HEADING = "Start a firing with the cone pack check"
NAMES = "`cone-pack` `cone-check` `strict-start` `firing-guard`"
SENTENCE = "Set `strict-start` to true so that the kiln refuses to start a firing when the cone pack is missing."


def answer(*claims: str) -> str:
    found = tuple(StatedFinding(claim, (n,), None, None) for n, claim in enumerate(claims, start=1))
    return answer_text(AnswerRequest(QUESTION, analyse(QUESTION), ((QUESTION, found),), ()))


def test_the_shape_of_a_line_says_what_kind_of_text_it_is() -> None:
    assert without_fields(FIELDS).startswith("If set to true, the kiln refuses")
    assert field_run(ONLY_FIELDS) == len(ONLY_FIELDS) and without_fields(ONLY_FIELDS) == ""
    assert field_run("Note: the kiln must be cold before you open it.") == 0  # one label opens a sentence
    assert is_sentence(SENTENCE) and is_sentence("Use `kilnctl start --strict` to start it:")
    assert not any(is_sentence(line) for line in (FIELDS, ONLY_FIELDS, HEADING, NAMES))


def test_an_answer_never_opens_with_a_field_list_a_heading_or_a_row_of_names() -> None:
    opened = answer(ONLY_FIELDS, HEADING, NAMES, SENTENCE)
    assert opened.startswith(SENTENCE), opened
    assert "Default:" not in opened and HEADING not in opened and NAMES not in opened


def test_a_reference_entry_is_stated_from_its_sentence_not_its_fields() -> None:
    opened = answer(FIELDS, HEADING)
    assert opened.startswith("If set to true, the kiln refuses to start a firing"), opened
    assert "Type: Boolean" not in opened and opened.rstrip().endswith("[1]")


def test_a_list_item_without_a_stop_is_a_statement_when_it_has_a_verb_like_is() -> None:
    assert is_sentence("`kilnctl start` is refused while the lid is open")
    assert not is_sentence("Refuse a firing without a cone pack")  # a heading: no auxiliary, no stop


def test_a_synopsis_is_no_row_of_names() -> None:
    synopsis = "`kilnctl mv` [ `-n` ] [ `-f` | `-i` ] `pattern` `name` Renames every firing program matching `pattern`."
    assert is_sentence(synopsis) and not is_sentence(NAMES)


def test_a_label_after_a_sentence_is_prose_not_a_field() -> None:
    line = "Source code: kiln/ The controller's programs are kept in `kiln`. Warning: The door lock can fail open."
    # the path is a field; the warning after a sentence's end is prose, kept whole
    assert without_fields(line) == "The controller's programs are kept in `kiln`. Warning: The door lock can fail open."
    assert without_fields("Release: 2.1 Editor: Ann Potter This manual covers the kiln's controller.") == (
        "This manual covers the kiln's controller."
    )
    two = "Default: 6 Type: Number Sets the cone. The kiln stops at it. It then cools."
    assert without_fields(two) == "Sets the cone. The kiln stops at it. It then cools."


def test_a_finding_reads_as_its_sentence_with_its_fields_after_it() -> None:
    assert fields_last(FIELDS) == (
        "If set to true, the kiln refuses to start a firing whose program names no cone pack. "
        "(Default: false; Type: Boolean)"
    )
    assert fields_last(ONLY_FIELDS) == ONLY_FIELDS and fields_last(SENTENCE) == SENTENCE


def test_one_label_with_a_one_token_value_before_a_sentence_is_a_field() -> None:
    line = "Source code: kiln/ctl.py The `ctl` module starts and stops firings."
    assert without_fields(line) == "The `ctl` module starts and stops firings."
    notes = ("Note: In some cases the kiln cools slowly.", "Note: The ZIP export of a program keeps its cones.")
    for prose in (*notes, "Warning: Never open a hot kiln. It can crack."):
        assert field_run(prose) == 0
