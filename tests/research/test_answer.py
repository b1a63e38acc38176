"""The direct answer, read as a careful reader would: about what was asked, statements not scraps,
the finding that answers the whole question first, and no unguarded recipe leading a safety answer.
"""

from __future__ import annotations

from deepr_mcp.research.providers.base import AnswerRequest, StatedFinding
from deepr_mcp.research.providers.local_answer import answer_text, names, says_something, subjects, word_set
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.synthesis import citations
from deepr_mcp.research.synthesis.claims import units


def _answer(question: str, groups: list[tuple[str, list[str]]], focus: str, key: list[str]) -> str:
    """The local provider's answer to an ``AnswerRequest`` of these cited findings, fenced code kept."""
    stated = []
    for text, lines in groups:
        found = []
        for line in lines:
            claim, _, code = line.partition("\n```\n")
            numbers = tuple(int(n) for n in citations.citations_in(claim))
            found.append(StatedFinding(citations.CITE.sub("", claim).strip(), numbers, code.strip("`\n") or None))
        stated.append((text, tuple(found)))
    return answer_text(AnswerRequest(question, analyse(question), tuple(stated), tuple(key)))


def test_an_answer_sentence_must_name_what_the_question_is_about() -> None:
    question = "What is the glaze operator, and what does it do?"
    groups = [
        (
            "What is the glaze operator?",
            [
                "`kiln.batch(pots, cone)` Perform the same operation as fire(). Changed in version 3.1. [1]",
                "A new role exists that loads the kiln; it is known as the glaze operator. [2]",
            ],
        ),
        ("What does the glaze operator do?", ["The glaze operator dips every pot before firing. [3]"]),
    ]
    out = _answer(question, groups, "definition", ["glaze", "operator"])
    assert "kiln.batch" not in out  # "operation" is not "operator", though both stem alike
    assert "A new role exists" in out


def test_words_as_written_not_stems_and_plurals_name_their_singular() -> None:
    assert not names({"operator"}, word_set("Perform the same operation as fire()"))
    assert names({"operator"}, word_set("Operators can only be applied between compatible objects"))
    assert subjects(analyse("How can I put visitor input into a kilnlog entry without log injection?")) == [
        {"put", "visitor", "input", "kilnlog", "entry", "log", "injection"}
    ]  # a safety how-to is about its task and the harm it avoids


def test_a_scrap_is_no_statement() -> None:
    assert not says_something("`kiln.fire_at(pots, /, *cones, **ramps)`")  # a bare signature
    assert not says_something("Unless stated otherwise, operators can only be applied between objects (i.e.")
    assert says_something("`glaze.thin(x)` Return a thinned glaze of x.")


def test_an_abbreviation_does_not_end_a_sentence() -> None:
    text = "Operators apply between compatible objects (i.e. IPv4 with IPv4). It is faster."
    assert [u.text for u in units(text)] == [
        "Operators apply between compatible objects (i.e. IPv4 with IPv4).",
        "It is faster.",
    ]
    assert [u.text for u in units("- To save electricity, the controller skips the last soak.")] == [
        "To save electricity, the controller skips the last soak."  # a list mark is not part of the claim
    ]


def test_the_finding_answering_the_whole_question_leads_even_when_long() -> None:
    question = "How does stoneware compare to earthenware when firing pots?"
    contrast = "Earthenware is a porous low-fired body, while stoneware is a dense body for high firing; " + " ".join(
        ["Earthenware can be scratched by a knife, while stoneware is not."] * 12
    )
    groups = [
        (question, ["It is possible to fire a cracked stoneware pot. [1]", f"{contrast} [2]"]),
        (
            "What is stoneware?",
            ["`exception kiln.StonewareError` Base class for the other stoneware errors. [3]"],
        ),
    ]
    out = _answer(question, groups, "comparison", ["stoneware", "earthenware", "firing"])
    assert out.startswith("Earthenware is a porous low-fired body")  # both sides, a contrast: the answer


def test_a_safety_how_to_answer_does_not_lead_with_an_unguarded_recipe() -> None:
    question = "How do I safely unpack a cargo crate without losing parts?"
    groups = [
        (
            question,
            [
                "How to unpack an entire cargo crate onto the loading bay floor: [1]",
                "Warning: Never unpack crates that strangers send before you look inside them. [2]",
            ],
        ),
        ("Which functions or methods are used to unpack a cargo crate?", ["Crate.unpack_all() unpacks all. [3]"]),
    ]
    out = _answer(question, groups, "how_to, safety", ["unpack", "cargo", "crate", "losing", "parts"])
    assert out.startswith("Warning: Never unpack crates") and "entire cargo crate" not in out


def test_a_class_named_warning_is_not_a_warning() -> None:
    question = "How can I put visitor input into a kilnlog entry without log injection?"
    groups = [
        (
            question,
            [
                "`exception kilnlog.Warning` This exception is raised by applications using kilnlog on write. [1]",
                "Use markers rather than string joining to place visitor text in kilnlog entries, "
                "to avoid log injection attacks. [2]",
            ],
        )
    ]
    out = _answer(question, groups, "how_to, safety", ["put", "visitor", "input", "kilnlog", "entry", "log"])
    assert out.startswith("Use markers rather than")


def test_each_part_of_an_open_compound_question_may_answer_without_repeating_its_subject() -> None:
    question = "How was the 1858 transatlantic telegraph cable laid and why did it fail?"
    groups = [
        ("How was the 1858 transatlantic telegraph cable laid?", ["Two warships each carried half the cable. [1]"]),
        ("Why did it fail?", ["An official inquiry later blamed Whitehouse's methods and poor manufacturing. [2]"]),
    ]
    out = _answer(question, groups, "general", ["1858", "transatlantic", "telegraph", "cable", "laid", "fail"])
    assert "warships" in out and "Whitehouse" in out  # "it" is the cable: the second part need not say so


def test_a_claim_documenting_another_api_does_not_answer_a_question_about_this_one() -> None:
    from deepr_mcp.research.providers.local_answer import about_another_api

    about = subjects(analyse("How does __glaze__ differ from __slip__?"))
    assert about_another_api("`class enum.SlipEnum` SlipEnum uses the slip() of Enum.", about)
    assert not about_another_api("`object.__slip__(self)` Called by the slip() built-in function.", about)
    assert not about_another_api("Plain prose about __glaze__.", about)
    loader = subjects(analyse("What is a kiln loader and how do I write one?"))
    assert not about_another_api("`kilnloader.__enter__()` Enter the loading context.", loader)  # joined words
    assert about_another_api("`rackbox.__enter__()` Enter the loading context.", loader)  # another API


THIN = (
    "A thin coat covers the bisque pot and then (to the extent possible) lets the clay body show "
    "through it at the edges of the rim."
)
THICK = (
    "A thick coat covers the bisque pot and then, layer by layer, hides the clay body under it at the edges of the rim."
)


def test_a_comparison_answer_states_both_halves_of_a_contrast() -> None:
    question = "How does a thin coat differ from a thick coat?"
    groups = [
        (question, [f"{THIN} [1]", "`glaze.coat(x)` Return a thin coat of x. [2]"]),
        ("What is a thick coat?", ["`glaze.heavycoat(x)` Return a thick coat of x. [3]", f"{THICK} [1]"]),
    ]
    out = _answer(question, groups, "comparison", ["thin", "coat", "thick"])
    assert THIN in out and THICK in out
    assert out.index(THICK) == out.index(THIN) + len(THIN) + len(" [1] ")  # the other half right after


def test_list_items_are_read_apart_from_their_introduction() -> None:
    from tests.research.requests import local_findings

    passage = (
        "The difference between thin and thick coating is matters only for porous bodies:\n\n"
        f"- {THIN}\n- {THICK}\n\nTwo problems often exist with thick coat glazes:"
    )
    lines = local_findings(
        "How does a thin coat differ from a thick coat?",
        [(1, "glazing/coats.html, coats \u2014 Thin and thick coats", passage)],
        key_terms=["thin", "coat", "thick"],
    ).splitlines()
    assert lines[0].startswith("- The difference between thin and thick coating is matters only for porous bodies. ")
    assert any(THIN in line for line in lines) and any(THICK in line for line in lines)
    assert not any(line.rstrip(" [1]").endswith(":") for line in lines)  # "Two problems ...:" leads nowhere


def test_an_answer_names_the_code_the_question_spells_out() -> None:
    from deepr_mcp.research.providers.local_answer import code_names

    assert code_names("Why is spool.tmpname() considered unsafe?") == {"spool", "tmpname"}
    assert code_names("How do I sort, e.g. by a key, a list?") == set()  # an abbreviation is no code
    question = "Why is spool.tmpname() called unsafe, and what replaces it?"
    groups = [
        (
            question,
            [
                "Lead glazes 2 and 3 are considered unsafe and are therefore dangerous to use. [1]",
                "`spool`: tmpname is deprecated due to vulnerability to name clashes [2]",
            ],
        ),
        ("What should you use instead?", ["`spool.reserve()` Reserves a spool name securely. [3]"]),
    ]
    out = _answer(question, groups, "why, safety", ["spool", "tmpname", "unsafe"])
    assert "Lead glazes" not in out and "tmpname is deprecated" in out


def test_an_option_entry_or_a_sentence_doing_it_does_not_lead_a_how_to_answer() -> None:
    question = "How do I visit each pot on a rack and on its lower racks?"
    walk = "`kiln.walk(top)` Yield the pot names on a kiln cart by walking the cart top-down. [3]"
    groups = [
        (
            question,
            [
                "`-l` Do not descend to lower shelves, only list pots on the named shelves. [1]",
                "You can do it from the controller prompt by running `potlist.py` on a shelf: [2]",
                walk,
            ],
        )
    ]
    out = _answer(question, groups, "how_to", ["visit", "pot", "rack", "racks"])
    assert out == walk  # a rack is the documentation's cart; the option entry and "do it" stay below
    asked = "Which command-line option stops potlist from descending to lower shelves?"
    option = _answer(asked, [(asked, groups[0][1][:1])], "how_to", ["potlist", "descending", "shelves"])
    assert option.startswith("`-l`")  # asked about options: an option's entry answers
