"""The relevance floor: a finding under a sub-question is the kind of statement it asks for, or a gap is named.

The passages here are the ones the python3-doc tar report used to print as filler: ownership
flags under "how can you protect against path traversal", ``ZipFile.extractall`` under the tar
warnings. Each is on the topic ("extract", "tar"), none answers what was asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.models import Finding
from deepr_mcp.research.providers import prompts
from deepr_mcp.research.providers.local import LocalProvider, findings_text
from deepr_mcp.research.synthesis.relevance import answered_by, answers, ask_of, ask_of_question, relevant

QUESTION = "How do I safely extract a tar archive against path traversal?"
TOPIC = {"extract", "tar", "archiv", "path", "travers"}

WARNING = (
    "Warning: Never extract archives from untrusted sources without prior inspection. It is possible that files "
    "are created outside of path."
)
OWNER = "If numeric_owner is True, the uid and gid numbers from the tarfile are used to set the owner of the files."
ZIP = "ZipFile.extractall(path=None, members=None, pwd=None) Extract all members from the archive to a directory."
OPTION = "If optional members is given, it must be a subset of the list returned by getmembers()."


@pytest.mark.parametrize(
    ("sub_question", "good", "filler"),
    [
        ("What does the documentation warn about when you extract a tar archive?", WARNING, ZIP),
        ("How can you protect against path traversal when you extract a tar archive?", WARNING, OWNER),
        ("Which options or parameters change how you extract a tar archive?", OPTION, "Tar archives hold files."),
        ("Which functions or methods are used to extract a tar archive?", "Use `TarFile.extractall()`.", "Tar."),
        ("In which version was the walrus operator added or changed?", "New in version 3.8: the walrus.", "It binds."),
        (
            "Which options or parameters change how you run a coroutine with a timeout?",
            "`asyncio.wait_for(aw, timeout)` Wait for the aw awaitable to complete with a timeout.",
            "`asyncio.sleep()` Block for a while.",
        ),
    ],
)
def test_each_kind_of_sub_question_takes_only_its_kind_of_statement(sub_question: str, good: str, filler: str) -> None:
    ask = ask_of(sub_question)
    assert ask.cues, sub_question
    assert answers(ask, good) and not answers(ask, filler)


@pytest.mark.parametrize(
    "sub_question",
    [
        QUESTION,
        "How is a decorator used?",
        "What is a generator?",
        "Why can an asyncio task disappear?",
        "How do a tuple and a list differ?",  # "Lists are mutable" answers it with no contrast word
    ],
)
def test_a_sub_question_asking_no_particular_kind_takes_anything_on_its_topic(sub_question: str) -> None:
    assert not ask_of(sub_question).cues
    assert answers(ask_of(sub_question), "Anything at all about it.")


def test_a_plain_requirement_is_not_a_warning() -> None:
    """ "members ... must be a subset of getmembers()" states an argument's contract, not a danger."""
    warn = ask_of("What does the documentation warn about when you extract a tar archive?")
    protect = ask_of("How can you protect against path traversal when you extract a tar archive?")
    assert not answers(warn, ZIP) and not answers(warn, OPTION) and not answers(protect, OPTION)


def test_code_answers_an_example_question_but_not_a_warning_question() -> None:
    example = ask_of("What example shows how to extract a tar archive?")
    warn = ask_of("What does the documentation warn about when you extract a tar archive?")
    assert answers(example, "Extract it like this:", code="tar.extractall()")
    assert not answers(warn, "Extract it like this:", code="tar.extractall()")


def test_off_topic_is_never_relevant_whatever_its_form() -> None:
    sub = "What does the documentation warn about when you extract a tar archive?"
    assert relevant(sub, WARNING, "tarfile > TarFile.extractall", TOPIC)
    assert not relevant(sub, "Warning: never share your password.", "getpass", TOPIC)
    assert not relevant(sub, WARNING, "tarfile", set())  # nothing wanted: nothing is on topic


def test_a_finding_elsewhere_covers_a_sub_question_only_if_it_answers_it() -> None:
    sub = "How can you protect against path traversal when you extract a tar archive?"
    warning = Finding(claim=WARNING, passage_ids=["p1"], confidence=0.9)
    owner = Finding(claim=OWNER, passage_ids=["p2"], confidence=0.9)
    assert answered_by(sub, [owner, warning], {"p1", "p2"}, TOPIC)
    assert not answered_by(sub, [owner], {"p1", "p2"}, TOPIC)  # from these passages, but not an answer
    assert not answered_by(sub, [warning], {"p9"}, TOPIC)  # an answer, but from other passages


def _findings(sub_question: str, passages: list[tuple[int, str, str]]) -> str:
    messages = prompts.findings_messages(
        sub_question,
        passages,
        question=QUESTION,
        focus="how_to, safety",
        key_terms=["extract", "tar", "archive", "path", "traversal"],
        related=[],
        known=[],
    )
    return findings_text(messages[-1].content)


def test_the_local_provider_prints_no_filler_under_a_sub_question() -> None:
    passages = [
        (1, "library/tarfile.html, tarfile > TarFile.extract", OWNER),
        (2, "library/zipfile.html, zipfile > ZipFile.extractall", ZIP),
        (3, "library/tarfile.html, tarfile > TarFile.extractall", WARNING),
    ]
    warn = _findings("What does the documentation warn about when you extract a tar archive?", passages)
    assert "Never extract archives" in warn and "ZipFile" not in warn and "numeric_owner" not in warn
    nothing = _findings("What does the documentation warn about when you extract a tar archive?", passages[:2])
    assert nothing == prompts.NO_EVIDENCE  # said as a gap, not filled with the nearest sentences
    # the question itself takes what names its task, whatever its form; the ownership flag names neither
    # extracting nor a tar archive, so it is not taken even there (see test_relevance_subject.py)
    assert _findings(QUESTION, passages[:1]) == prompts.NO_EVIDENCE
    owned = [(1, "library/tarfile.html, tarfile > TarFile.extract", "Extracted tar members keep the owner " + OWNER)]
    assert "numeric_owner" in _findings(QUESTION, owned)


TAR_DOC = """# tarfile

## TarFile.extract

If numeric_owner is True, the uid and gid numbers from the tar archive are used to set the owner of the
extracted files. File attributes (owner, mtime, mode) are set unless set_attrs is false.

## TarFile.extractall

Extract all members from the tar archive to the current working directory or directory path.
"""


async def test_a_sub_question_nothing_answers_is_a_named_gap_with_the_nearest_passage(tmp_path: Path) -> None:
    (tmp_path / "tarfile.md").write_text(TAR_DOC)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "tarfile.md")
    state = await Engine(corpus, LocalProvider()).run(new_state(QUESTION))
    protect = next(sq for sq in state.sub_questions if "protect against" in sq.text)
    assert protect.status == "unanswered" and not protect.findings
    assert f"### {protect.text}" not in state.report
    gaps = state.report.split("## Gaps", 1)[1].split("## Sources", 1)[0]
    assert protect.text in gaps and "the passages found do not answer it; the nearest was tarfile.md" in gaps
    findings = state.report.split("## Findings", 1)[1].split("## Gaps", 1)[0]
    assert "numeric_owner" not in findings.split(f"### {protect.text}")[-1]


async def test_a_sub_question_answered_by_an_earlier_finding_says_so(tmp_path: Path) -> None:
    doc = TAR_DOC + f"\n## Extraction warning\n\n{WARNING}\n"
    (tmp_path / "tarfile.md").write_text(doc)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "tarfile.md")
    state = await Engine(corpus, LocalProvider()).run(new_state(QUESTION))
    protect = next(sq for sq in state.sub_questions if "protect against" in sq.text)
    assert protect.status == "answered" and "Never extract archives" in state.report
    section = state.report.split(f"### {protect.text}", 1)[1].split("###", 1)[0]
    assert "_Answered above: its evidence is already stated._" in section and "numeric_owner" not in section
    assert protect.text not in "".join(g.sub_question for g in state.gaps)


@pytest.mark.parametrize(
    ("question", "narrowed"),
    [
        ("What should I watch out for when extracting a zip file from the internet?", True),
        ("What are the risks of calling subprocess with shell=True?", True),
        (QUESTION, False),  # how to do it safely: the how is an answer too
        ("Why does json.loads raise errors on NaN?", False),  # asks why, not for warnings
        ("What is a generator?", False),
    ],
)
def test_the_question_itself_is_narrowed_to_warnings_only_when_it_asks_about_dangers(
    question: str, narrowed: bool
) -> None:
    ask = ask_of_question(question)
    setpassword = "ZipFile.setpassword(pwd) Set pwd as default password to extract encrypted files."
    assert answers(ask, WARNING)
    assert answers(ask, setpassword) is not narrowed


AUDIT = "Raises an auditing event `shutil.unpack_archive` with arguments `filename`, `extract_dir`, `format`."


def test_reference_notes_are_furniture_unless_asked_about() -> None:
    from deepr_mcp.research.synthesis.relevance import reference_note

    options = "Which options or parameters change how you extract a tar archive?"
    assert reference_note(AUDIT, QUESTION, options)
    assert not relevant(options, AUDIT, "shutil > unpack_archive", TOPIC, question=QUESTION, action="extract")
    assert not reference_note(AUDIT, "Which auditing events does shutil raise?")
    popen = "Popen and the functions that use it raise an auditing event `subprocess.Popen` with arguments `args`."
    assert reference_note(popen, "Should I use subprocess.run or Popen?")
    assert reference_note("Availability: Unix, not Emscripten, not WASI.", QUESTION)
    assert not reference_note("Availability: Unix, not Emscripten, not WASI.", "Does os.fork work on Windows?")
    assert reference_note("Part of the Stable ABI since version 3.9.", "How does the garbage collector work?")
    assert not reference_note("Audit hooks can raise an exception to abort an operation.", QUESTION)


def test_a_hyphenated_word_is_no_command_line_option() -> None:
    ask = ask_of("Which options or parameters change how you open a file?")
    assert not answers(ask, "The built-in open() function reads files in non-blocking mode.")
    assert answers(ask, "Run python -m tarfile -e monty.tar to extract the archive.")
    assert answers(ask, "Use --extract to unpack it into the current directory.")
    assert not answers(ask, "On failure, -1 is returned.")


def test_the_local_provider_drops_audit_lines_even_as_a_neighbour() -> None:
    passage = (
        "`shutil.unpack_archive(filename[, extract_dir[, format]])` Unpack an archive. extract_dir is the "
        f"name of the target directory where the archive is unpacked. {AUDIT}"
    )
    out = _findings(
        "Which options or parameters change how you extract a tar archive?",
        [(1, "library/shutil.html, shutil > shutil.unpack_archive", passage)],
    )
    assert "extract_dir" in out and "auditing event" not in out


def test_a_sentence_opening_with_a_conjunction_is_read_with_the_one_before() -> None:
    passage = (
        "Directory information like owner and permissions is set after all members have been extracted when "
        "you extract a tar archive. This is done to work around two problems: A directory's modification time "
        "is reset each time a file is created in it. And, if a directory's permissions do not allow writing, "
        "extracting files from the tar archive to it will fail."
    )
    out = _findings(QUESTION, [(1, "library/tarfile.html, tarfile > TarFile.extractall", passage)])
    assert "- And," not in out  # never half a statement on its own


def test_a_sentence_that_only_points_elsewhere_is_no_finding() -> None:
    from deepr_mcp.research.synthesis.relevance import pointer

    for text in (
        "See the description of module `pickle` for information on these methods.",
        "See also Binary Sequence Types.",
        "This section shows recipes and best practices for using `secrets`.",
        "The following sections describe the protocol for finders and loaders in more detail.",
        "Discussion of the special methods used to support object state retrieval and restoration.",
        "For more details on the format, see RFC 4648.",
    ):
        assert pointer(text), text
    assert not pointer("Seeing that sets are unordered, a sorted copy is returned.")
    assert not pointer("The example script has a simple function that logs at every level.")
    passage = (
        "See `TarFile.extractall()` for more details about extracting a tar archive. Never extract archives "
        "from untrusted sources without prior inspection."
    )
    out = _findings(QUESTION, [(1, "library/tarfile.html, tarfile > TarFile.extract", passage)])
    assert "Never extract archives" in out and "See `TarFile" not in out
