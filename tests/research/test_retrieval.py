"""Retrieval over a real corpus: evidence phrased unlike the question, caveats, diversity."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.retrieval.lexical import Retriever, mmr

DOCS = {
    "tarfile.md": """# tarfile

## Extracting

TarFile.extractall(path=".", members=None) extracts all members from the archive to the current
working directory or directory path.

Warning: never extract archives from untrusted sources without prior inspection. It is possible
that files are created outside of path, e.g. members that have absolute filenames starting with "/"
or filenames with two dots "..".

## Reading

TarFile.getmembers() returns the members of the archive as a list of TarInfo objects.
""",
    "zipfile.md": """# zipfile

## Extracting

ZipFile.extractall(path=None) extracts all members from the archive to the current working directory.
""",
    "copies.md": """# copies

## One

Tar archive extract tar archive extract tar archive path traversal notes and more notes.

## Two

Tar archive extract tar archive extract tar archive path traversal notes and more notes, again.
""",
}


def indexed(tmp_path: Path, docs: dict[str, str]) -> Corpus:
    """A corpus of ``docs`` (file name -> text), written to ``tmp_path`` and added."""
    for name, text in docs.items():
        (tmp_path / name).write_text(text)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path)
    return corpus


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return indexed(tmp_path, DOCS)


def test_safety_questions_surface_the_warning_phrased_differently(corpus: Corpus) -> None:
    analysis = analyse("How do I safely extract a tar archive against path traversal?")
    evidence = Retriever(corpus).retrieve(analysis.question, analysis, 3)
    texts = [p.text for p in evidence.passages]
    assert any("outside of path" in t for t in texts)


def test_near_copies_are_not_both_returned(corpus: Corpus) -> None:
    analysis = analyse("How do I extract a tar archive?")
    evidence = Retriever(corpus).retrieve(analysis.question, analysis, 4)
    copies = [p for p in evidence.passages if p.text.startswith("Tar archive extract")]
    assert len(copies) <= 1


def test_mmr_edges() -> None:
    assert mmr([], 3) == []


def test_empty_corpus_gives_no_evidence(tmp_path: Path) -> None:
    analysis = analyse("What is a context variable?")
    assert Retriever(Corpus(tmp_path / "empty.db")).retrieve(analysis.question, analysis, 3).passages == []


def test_two_question_words_are_also_searched_as_the_identifier_the_corpus_writes(tmp_path: Path) -> None:
    (tmp_path / "csv.md").write_text(
        "# csv\n\n## csv.reader\n\nReturn a reader object which will iterate over lines in the given csvfile.\n\n"
        "## csv.writer\n\nReturn a writer object that converts data into delimited strings.\n\n"
        "## Dialects\n\nA dialect describes rows, fields and quoting of a file in CSV format.\n\n"
        "## Sniffer\n\nThe Sniffer reads a sample of a file and guesses the format of its rows.\n\n"
        "## Rows\n\nEach row read from the file is returned as a list of strings.\n\n"
        "## Writing\n\nRows are written to the file one by one with writerow.\n"
    )
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "csv.md")
    retriever = Retriever(corpus)
    assert retriever._compounds("How do I read rows from a CSV file?") == ["csvfile"]
    assert retriever._compounds("How do I open a zip archive?") == []  # no such word in this corpus
    analysis = analyse("How do I read rows from a CSV file?")
    evidence = retriever.retrieve(analysis.question, analysis, 3)
    assert "csv > csv.reader" in [p.location for p in evidence.passages]
    retriever._compounds = lambda text: []  # type: ignore[method-assign]  # without the joined word
    evidence = retriever.retrieve(analysis.question, analysis, 3)
    assert "csv > csv.reader" not in [p.location for p in evidence.passages]


def test_a_definition_question_weighs_the_defined_term_not_its_question_words(tmp_path: Path) -> None:
    (tmp_path / "docs.md").write_text(
        "# Glossary\n\n## EAFP\n\nEasier to ask for forgiveness than permission: assume keys exist and catch "
        "exceptions.\n\n# statistics\n\n## mean\n\nThe mean of the data; the mean is the sum divided by the count, "
        "the arithmetic mean.\n"
    )
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "docs.md")
    analysis = analyse("What does EAFP mean?")
    evidence = Retriever(corpus).retrieve(analysis.question, analysis, 1)
    assert evidence.passages[0].text.startswith("Easier to ask")


FOLDER_DOCS = {
    "tutorial.md": """# Tutorial

## Visiting every folder

To visit every folder and every file below a folder, loop over what os.walk() gives you.
""",
    "os.md": """# os

## os.walk

Generate the file names in a directory tree by walking the tree either top-down or bottom-up.
""",
    "mailbox.md": """# mailbox

## add_folder

Create a folder in the mailbox; every folder holds messages.

## remove_folder

Delete a folder from the mailbox if every message in the folder was removed first.
""",
}


def test_a_how_to_reaches_the_reference_entry_of_the_api_its_best_passages_use(tmp_path: Path) -> None:
    corpus = indexed(tmp_path, FOLDER_DOCS)
    analysis = analyse("How can I visit every file in a folder and its subfolders?")
    evidence = Retriever(corpus).retrieve(analysis.question, analysis, 3)
    assert any("directory tree" in p.text for p in evidence.passages)  # no word of the question in it


def test_a_safety_how_to_does_not_trade_its_warnings_for_reference_entries(corpus: Corpus) -> None:
    analysis = analyse("How do I safely extract a tar archive against path traversal?")
    evidence = Retriever(corpus).retrieve("What does the documentation warn about?", analysis, 2)
    assert any("outside of path" in p.text for p in evidence.passages)


METADATA_DOCS = {
    "shutil.md": """# shutil

## shutil.copy2

Identical to copy() except that copy2() also attempts to preserve file metadata such as the last
modification time of the copied file.

## shutil.copyfile

Copy the contents of the file named src to a file named dst, in the most efficient way possible.
""",
    "py_compile.md": """# py_compile

## TIMESTAMP

The pyc file includes the timestamp and size of the source file, which Python will compare against the
metadata of the source file at runtime to determine if the pyc file needs to be regenerated.
""",
}


def test_an_everyday_word_also_finds_the_documentation_word_for_it(tmp_path: Path) -> None:
    corpus = indexed(tmp_path, METADATA_DOCS)
    analysis = analyse("How do I copy a file and keep its timestamps?")
    evidence = Retriever(corpus).retrieve(analysis.question, analysis, 1)
    # "keep its timestamps" is "preserve file metadata" to the documentation
    assert "preserve file metadata" in evidence.passages[0].text
    assert "preserve" in evidence.related


LINES_DOCS = {
    "linereader.md": """# LineReader

## LineReader.readline

Read a single logical line from the current text file; a file line ending in a backslash joins the next
line.
""",
    "tutorial.md": """# Input and Output

## Methods of File Objects

For reading lines from a text file, you can loop over the file object. This is memory efficient, fast,
and leads to simple code.
""",
}


def test_a_how_to_prefers_the_passage_that_tells_the_reader_what_to_do(tmp_path: Path) -> None:
    corpus = indexed(tmp_path, LINES_DOCS)
    analysis = analyse("How do I read a text file line by line?")
    evidence = Retriever(corpus).retrieve(analysis.question, analysis, 1)
    # both hold every word of the question; the tutorial addresses the reader ("you can ...")
    assert "you can loop over the file object" in evidence.passages[0].text
