"""Following the API names of the best passages to their reference entries (how-tos)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from deepr_mcp.research.retrieval.follow import API_NAME, follow_names
from deepr_mcp.text.tokenizer import tokenize


def test_api_names_are_dotted_names_not_example_variables_or_abbreviations() -> None:
    text = "Use os.walk() or shutil.copy2; t.tzname is an example variable, e.g. this, and mod.sub.func too."
    assert API_NAME.findall(text) == ["os.walk", "shutil.copy2", "mod.sub.func"]


@dataclass
class _Hit:
    id: str
    text: str
    location: str


@dataclass
class _Candidate:
    passage: _Hit
    terms: Counter[str]
    heading: set[str]
    score: float = 0.0


def _candidate(hit: _Hit, score: float = 0.0) -> _Candidate:
    return _Candidate(hit, Counter(tokenize(hit.text)), set(tokenize(hit.location)), score)


class _Entries:
    """A heading search over a few reference passages, in the given (BM25-like) order."""

    def __init__(self, *hits: _Hit) -> None:
        self.hits = hits
        self.asked: list[str] = []

    def search_passages(self, query: str, limit: int, *, headings_only: bool = False) -> list[_Hit]:
        self.asked.append(query)
        words = set(query.lower().split("."))
        return [h for h in self.hits if words & set(h.location.lower().replace(" > ", ".").split("."))][:limit]


OS = "os — Miscellaneous operating system interfaces > Process Parameters > os.environ"
WALK = "os — Miscellaneous operating system interfaces > Files and Directories > os.walk"


def test_an_entry_opening_with_its_signature_and_description_is_followed_before_its_version_note() -> None:
    note = _Hit("n", "Changed in version 3.9: Updated to support PEP 584's merge and update operators.", OS)
    opening = _Hit(
        "o",
        "`os.environ`\n\nA mapping object where keys and values are strings that represent the process environment.",
        OS,
    )
    corpus = _Entries(note, _Hit("x", "More about os.environ and putenv when the mapping is changed.", OS), opening)
    # the best passage names os.environ; "environment" stems like "environ", yet the name is not written
    best = _candidate(_Hit("b", "Environment variables are read from os.environ at startup.", "Tutorial > Env"), 1.0)
    pool = {"b": best}
    follow_names(corpus, pool, {"environ": 1.0, "variabl": 1.0}, _candidate, "How do I read an environment variable?")
    assert corpus.asked == ["os.environ"]
    assert "o" in pool and pool["o"].score > 0


def test_a_bare_signature_line_is_not_followed_but_the_description_after_it_is() -> None:
    bare = _Hit("s", "`csv.reader(csvfile, dialect='excel')`", "csv > Module Contents > csv.reader")
    described = _Hit("d", "Return a reader object which will iterate over lines in the given csvfile.", bare.location)
    corpus = _Entries(bare, described)
    pool = {"b": _candidate(_Hit("b", "Use csv.reader to read rows.", "csv > Examples"), 1.0)}
    follow_names(corpus, pool, {"row": 1.0, "csv": 1.0}, _candidate, "How do I read rows from a CSV file?")
    assert "d" in pool and "s" not in pool


def test_a_paragraph_of_an_entry_leads_to_the_entry_opening() -> None:
    later = _Hit("p", "When topdown is True, the caller can modify the subdirectory list in place.", WALK)
    opening = _Hit(
        "o",
        "`os.walk(top, topdown=True)`\n\nGenerate the file names in a directory tree by walking the "
        "tree either top-down or bottom-up.",
        WALK,
    )
    corpus = _Entries(later, opening)
    pool = {"p": _candidate(later, 1.0)}  # the paragraph names no API in its text; its heading does
    follow_names(corpus, pool, {"subdirectori": 1.0}, _candidate, "How can I visit every file in a subdirectory?")
    assert "o" in pool and pool["o"].score > 0


def test_a_name_whose_parts_the_question_writes_is_not_followed_again() -> None:
    corpus = _Entries(
        _Hit(
            "t",
            "`asyncio.timeout(delay)`\n\nAn asynchronous context manager that limits time.",
            "asyncio > Timeouts > asyncio.timeout",
        )
    )
    pool = {"b": _candidate(_Hit("b", "Use asyncio.timeout around the call.", "asyncio > Timeouts"), 1.0)}
    follow_names(corpus, pool, {"timeout": 1.0}, _candidate, "How do I run a coroutine with a timeout in asyncio?")
    assert corpus.asked == [] and list(pool) == ["b"]
