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
                "`re.subn(pattern, repl, string)` Perform the same operation as sub(). Changed in version 3.1. [1]",
                "A new role exists that loads the kiln; it is known as the glaze operator. [2]",
            ],
        ),
        ("What does the glaze operator do?", ["The glaze operator dips every pot before firing. [3]"]),
    ]
    out = _answer(question, groups, "definition", ["glaze", "operator"])
    assert "re.subn" not in out  # "operation" is not "operator", though both stem alike
    assert "A new role exists" in out


def test_words_as_written_not_stems_and_plurals_name_their_singular() -> None:
    assert not names({"operator"}, word_set("Perform the same operation as sub()"))
    assert names({"operator"}, word_set("Operators can only be applied between compatible objects"))
    assert subjects(analyse("How can I put user input into an SQLite query without SQL injection?")) == [
        {"put", "user", "input", "sqlite", "query", "sql", "injection"}
    ]  # a safety how-to is about its task and the harm it avoids


def test_a_scrap_is_no_statement() -> None:
    assert not says_something("`operator.call(obj, /, *args, **kwargs)`")  # a bare signature
    assert not says_something("Unless stated otherwise, operators can only be applied between objects (i.e.")
    assert says_something("`copy.copy(x)` Return a shallow copy of x.")


def test_an_abbreviation_does_not_end_a_sentence() -> None:
    text = "Operators apply between compatible objects (i.e. IPv4 with IPv4). It is faster."
    assert [u.text for u in units(text)] == [
        "Operators apply between compatible objects (i.e. IPv4 with IPv4).",
        "It is faster.",
    ]
    assert [u.text for u in units("- To reduce memory usage, the collector clears free lists.")] == [
        "To reduce memory usage, the collector clears free lists."  # a list mark is not part of the claim
    ]


def test_the_finding_answering_the_whole_question_leads_even_when_long() -> None:
    question = "How does pickle compare to json when serializing data?"
    contrast = "JSON is a textual serialization format, while pickle is a binary format for serialization; " + " ".join(
        ["JSON can be read by humans, while pickle is not."] * 12
    )
    groups = [
        (question, ["It is possible to construct malicious pickle data. [1]", f"{contrast} [2]"]),
        ("What is pickle?", ["`exception pickle.PickleError` Common base class for the other pickling errors. [3]"]),
    ]
    out = _answer(question, groups, "comparison", ["pickle", "json", "serializing"])
    assert out.startswith("JSON is a textual serialization format")  # both sides, a contrast: the answer


def test_a_safety_how_to_answer_does_not_lead_with_an_unguarded_recipe() -> None:
    question = "How do I safely extract a tar archive without path traversal?"
    groups = [
        (
            question,
            [
                "How to extract an entire tar archive to the current working directory: [1]",
                "Warning: Never extract archives that strangers send before you look inside them. [2]",
            ],
        ),
        ("Which functions or methods are used to extract a tar archive?", ["TarFile.extractall() extracts all. [3]"]),
    ]
    out = _answer(question, groups, "how_to, safety", ["extract", "tar", "archive", "path", "traversal"])
    assert out.startswith("Warning: Never extract archives") and "entire tar archive" not in out


def test_a_class_named_warning_is_not_a_warning() -> None:
    question = "How can I put user input into an SQLite query without SQL injection?"
    groups = [
        (
            question,
            [
                "`exception sqlite3.Warning` This exception is raised by applications using sqlite3 on insert. [1]",
                "Use placeholders rather than string formatting to bind values to SQL statements, "
                "to avoid SQL injection attacks. [2]",
            ],
        )
    ]
    out = _answer(question, groups, "how_to, safety", ["insert", "user", "input", "sqlite", "query", "sql"])
    assert out.startswith("Use placeholders rather than")


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

    about = subjects(analyse("How does __str__ differ from __repr__?"))
    assert about_another_api("`class enum.ReprEnum` ReprEnum uses the repr() of Enum.", about)
    assert not about_another_api("`object.__repr__(self)` Called by the repr() built-in function.", about)
    assert not about_another_api("Plain prose about __str__.", about)
    manager = subjects(analyse("How can I write a context manager of my own for a with statement?"))
    assert not about_another_api("`contextmanager.__enter__()` Enter the runtime context.", manager)  # joined words


SHALLOW = (
    "A shallow copy builds a new compound object and then (to the extent possible) inserts references "
    "into it to the objects found in the original."
)
DEEP = (
    "A deep copy builds a new compound object and then, recursively, inserts copies into it of the objects "
    "found in the original."
)


def test_a_comparison_answer_states_both_halves_of_a_contrast() -> None:
    question = "How does a shallow copy differ from a deep copy?"
    groups = [
        (question, [f"{SHALLOW} [1]", "`copy.copy(x)` Return a shallow copy of x. [2]"]),
        ("What is a deep copy?", ["`copy.deepcopy(x)` Return a deep copy of x. [3]", f"{DEEP} [1]"]),
    ]
    out = _answer(question, groups, "comparison", ["shallow", "copy", "deep"])
    assert SHALLOW in out and DEEP in out
    assert out.index(DEEP) == out.index(SHALLOW) + len(SHALLOW) + len(" [1] ")  # the other half right after


def test_list_items_are_read_apart_from_their_introduction() -> None:
    from tests.research.requests import local_findings

    passage = (
        "The difference between shallow and deep copying is matters only for compound objects:\n\n"
        f"- {SHALLOW}\n- {DEEP}\n\nTwo problems often exist with deep copy operations:"
    )
    lines = local_findings(
        "How does a shallow copy differ from a deep copy?",
        [(1, "library/copy.html, copy \u2014 Shallow and deep copy operations", passage)],
        key_terms=["shallow", "copy", "deep"],
    ).splitlines()
    assert lines[0].startswith(
        "- The difference between shallow and deep copying is matters only for compound objects. "
    )
    assert any(SHALLOW in line for line in lines) and any(DEEP in line for line in lines)
    assert not any(line.rstrip(" [1]").endswith(":") for line in lines)  # "Two problems ...:" leads nowhere


def test_an_answer_names_the_code_the_question_spells_out() -> None:
    from deepr_mcp.research.providers.local_answer import code_names

    assert code_names("Why is tempfile.mktemp() considered insecure?") == {"tempfile", "mktemp"}
    assert code_names("How do I sort, e.g. by a key, a list?") == set()  # an abbreviation is no code
    question = "Why is tempfile.mktemp() called insecure, and what replaces it?"
    groups = [
        (
            question,
            [
                "SSL versions 2 and 3 are considered insecure and are therefore dangerous to use. [1]",
                "`tempfile`: mktemp is deprecated due to vulnerability to race conditions [2]",
            ],
        ),
        ("What should you use instead?", ["`tempfile.mkstemp()` Creates a temporary file securely. [3]"]),
    ]
    out = _answer(question, groups, "why, safety", ["tempfile", "mktemp", "insecure"])
    assert "SSL" not in out and "mktemp is deprecated" in out


def test_an_option_entry_or_a_sentence_doing_it_does_not_lead_a_how_to_answer() -> None:
    question = "How do I visit each file in a folder and in its subfolders?"
    walk = "`os.walk(top)` Yield the file names in a directory tree by walking the tree top-down. [3]"
    groups = [
        (
            question,
            [
                "`-l` Do not recurse into subdirectories, only compile files in the named directories. [1]",
                "You can do it from the shell prompt by running `compileall.py` on a directory: [2]",
                walk,
            ],
        )
    ]
    out = _answer(question, groups, "how_to", ["visit", "file", "folder", "subfolders"])
    assert out == walk  # a folder is the documentation's directory; the option entry and "do it" stay below
    asked = "Which command-line option stops compileall from recursing into subdirectories?"
    option = _answer(asked, [(asked, groups[0][1][:1])], "how_to", ["compileall", "recursing", "subdirectories"])
    assert option.startswith("`-l`")  # asked about options: an option's entry answers
