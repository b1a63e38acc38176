"""Whether a finding speaks to its sub-question: the floor below which a report says "not found".

Every sub-question is a part the reader asked, so a finding must be on its topic (it or its heading
names what is asked), be a statement (not a pointer elsewhere, not an introduction with nothing
after it), and be about the task and the year the question asks about. A question about risks
("what are the pitfalls of ...") takes only warnings and caveats. The cues are about the form of
an answer in English (a warning, a recipe for another task), not about one corpus's topics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepr_mcp.research.reading.cues import CAVEAT_CUE
from deepr_mcp.research.reading.terms import terms
from deepr_mcp.text.tokenizer import tokenize

PROTECT_CUE = CAVEAT_CUE + r"|\b(?:safe\w*|validat\w*|sanitiz\w*|sanitis\w*|check\w*|filter\w*|verif\w*|absolute)\b"
WARN_ASK = (
    r"\bwarn\w*\b|\brisks?\b|\bcaveats?\b|\bpitfalls?\b|\berrors?\b|\blimitations?\b|\bproblems?\b|\bgotchas?\b|"
    r"\bdangers?\b|\bwatch out\b|\blook out\b|\bbeware\b"
)


@dataclass(frozen=True, slots=True)
class Ask:
    """What one sub-question wants from a finding."""

    cues: tuple[re.Pattern[str], ...]
    """The finding must match one of these (none: any finding on the topic will do)."""
    code_answers: bool
    """Quoted code counts as the answer (an example, a function, an option in a call)."""
    needs_code: bool = False
    """Only quoted code answers: an example is shown, not told ("For example, you can sign pickles")."""


def ask_of_question(question: str) -> Ask:
    """What the reader's own question asks for: only a question about dangers ("what must I beware of
    in ...", "what are the risks of ...") narrows its findings, to warnings and caveats; any
    other takes every on-topic statement, since its findings also make up the direct answer."""
    warns = re.search(WARN_ASK, question, re.I) and not re.search(r"\berrors?\b|\bproblems?\b", question, re.I)
    return Ask((re.compile(CAVEAT_CUE, re.I),), False) if warns else Ask((), False)


def answers(ask: Ask, text: str, code: str | None = None, wanted: set[str] | None = None) -> bool:
    """Whether a claim (with the code it quotes) is the kind of statement the sub-question asks for.

    With ``wanted`` (the question's terms), the sentence that makes it that kind must itself be on
    the topic: "Class for reading tar archives. Do not use this class directly." names the topic
    in one sentence and says "do not" in another, and warns about nothing the reader asked.
    """
    if ask.needs_code and not code:
        return False
    if not ask.cues:
        return True
    if code and ask.code_answers:
        return True
    if wanted is None:
        return any(cue.search(text) for cue in ask.cues)
    return any(
        cue.search(sentence) and (cue.pattern not in WARNINGS or terms(sentence) & wanted or HARM.search(sentence))
        for sentence in _sentences(text)
        for cue in ask.cues
    )


WARNINGS = (CAVEAT_CUE, PROTECT_CUE)
"""The kinds whose cue sentence must name the topic itself: a warning warns about what it names."""


HARM = re.compile(
    r"\b(?:secur\w*|insecure|injection|vulnerab\w*|untrusted|malicious\w*|attack\w*|arbitrary code|exploit\w*)\b",
    re.I,
)
"""What a warning about harm says: it speaks to a safety question whatever words it uses."""
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-Z`\"'(])")


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(" ".join(text.split())) if s]


_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)(s?)\b")


def years(text: str) -> set[int]:
    """The years a text names; a decade ("the 1850s") names each of its ten years."""
    out: set[int] = set()
    for year, decade in _YEAR.findall(text):
        out |= set(range(int(year), int(year) + 10)) if decade and year.endswith("0") else {int(year)}
    return out


def other_year(question: str, text: str, heading: str) -> bool:
    """Whether a claim is about another year than the one the question asks about.

    "How was the 1858 cable laid?" is not answered by the 1866 expedition's ship, even where a
    sentence mentions 1858 in passing: the heading a passage sits under says what it is about
    ("The lasting cable of 1866"), and a claim under a heading naming no year is judged by the
    years it names itself. A question naming no year asks about none in particular.
    """
    asked = years(question)
    if not asked:
        return False
    named = years(heading) or years(text)
    return bool(named) and not named & asked


_PURPOSE = re.compile(
    r"(?:^|[.:;!?]\s+)(?:(?:how|in order) to|to|if you (?:\w+ )?(?:want|wish|need|would like) to)\s+(?P<verb>[a-z]+)\b",
    re.I,
)
ANY_PURPOSE = frozenset(
    tokenize(
        "use do make get see find learn avoid prevent protect guard ensure check verify validate sanitize limit "
        "reduce restrict handle stop secure"
    )
)
"""Purposes that serve any action (using a tool, avoiding a harm): never a recipe for another task."""


def other_action(action: str, text: str) -> bool:
    """Whether a claim is a recipe for a different task than the how-to asks: "If you want to create
    a new tar archive, use the -c option" answers nothing about how to extract one, though it
    names the same archive and an option. A claim that also uses the asked verb is kept."""
    verb = tokenize(action)[:1]
    if not verb or verb[0] in tokenize(text):
        return False
    for match in _PURPOSE.finditer(" ".join(text.split())):
        purpose = tokenize(match.group("verb"))[:1]
        if purpose and purpose[0] not in ANY_PURPOSE and purpose != verb:
            return True
    return False


_CONTINUES = re.compile(r"\b(?:also|too|as well|likewise|similarly)\b", re.I)


def off_task(action: str, sentences: list[str]) -> set[int]:
    """Which sentences of a passage (by position) are a recipe for another task than ``action``, or
    go on with one: "If you want to create a new archive, use -c: ... Passing a directory is also
    acceptable: ... -c ..." is all about creating, though only its first sentence says so."""
    out: set[int] = set()
    for i, sentence in enumerate(sentences):
        if other_action(action, sentence) or (i - 1 in out and _CONTINUES.search(sentence)):
            out.add(i)
    return out if action else set()


def names_action(action: str, text: str) -> bool:
    """Whether a claim names, in its own words, what the how-to does or what it acts on.

    The reader's question itself takes any kind of statement, so its findings need this much:
    "Path objects are traversable" shares only the concern ("path traversal") and its heading
    names archives, and says nothing about extracting a tar archive.
    """
    return not action or bool(terms(text) & terms(action))


def off_subject(question: str, action: str, text: str, heading: str) -> bool:
    """About something else than asked: another year, or another task than the how-to's."""
    return other_year(question, text, heading) or bool(action and other_action(action, text))


def on_topic(text: str, heading: str, wanted: set[str]) -> bool:
    """Whether the claim or the heading it sits under names anything the question is about."""
    return bool(wanted and (terms(text) | terms(heading)) & wanted)


def relevant(
    sub_question: str,
    text: str,
    heading: str,
    wanted: set[str],
    code: str | None = None,
    *,
    question: str = "",
    action: str = "",
    by_meaning: bool = False,
) -> bool:
    """The floor a finding must clear: on the question's topic, the kind of answer asked for, and
    about the year and the task the question asks about (``question``, the how-to's ``action``).

    ``by_meaning``: the finding's passage was found by meaning (its embedding stands out as close to
    the question's), so it is on the topic without naming it, and the kind is judged on its words alone.

    Every sub-question is a part the reader asked, so each asks for what :func:`ask_of_question`
    reads from its own words: warnings for a part about dangers, any statement on its topic otherwise.
    """
    ask = ask_of_question(sub_question or question)
    return (
        not dangling(text, code)
        and not stray_change_note(text, question, sub_question)
        and not pointer(text)
        and (bool(code) or by_meaning or on_topic(text, heading, wanted))
        and (not text or by_meaning or names_action(action, text))
        and answers(ask, text, code, wanted if question and not by_meaning else None)
        and not off_subject(question, action, text, heading)
    )


_POINTER = re.compile(
    r"^(?:see(?: also)?\b|discussion of\b|for (?:more |further )?(?:details|information)\b[^.]*\bsee\b|"
    r"(?:this|the following|the next|the previous|the examples?) (?:sections?|chapters?|pages?|documents?|"
    r"tutorials?|howtos?|tables?) (?:below |above )?(?:shows?|showcases?|describes?|explains?|covers?|lists?|"
    r"documents?|gives?|contains?|presents?|discuss\w*|illustrates?)\b)",
    re.I,
)


def pointer(text: str) -> bool:
    """A sentence that only points elsewhere in the documentation ("See the description of module
    pickle for information on these methods.", "This section shows recipes ...", "Discussion of the
    special methods ..."): a report cannot follow the link, so it states nothing a reader can use."""
    return bool(_POINTER.match(text.strip()))


_CHANGE_NOTE = re.compile(r"^(?:changed|new|added) in (?:version |python )?\d", re.I)
_ASKS_VERSION = re.compile(r"\bversions?\b|\bdeprecat\w*|\bsince when\b|\bwhen was\b|\bwhat'?s new\b", re.I)


def stray_change_note(text: str, question: str, sub_question: str) -> bool:
    """A "Changed in version 3.2: Added the set_attrs parameter." note answers a question about
    versions, not one about how or why; a deprecation is a warning and is kept."""
    return bool(_CHANGE_NOTE.match(text.strip())) and not _ASKS_VERSION.search(f"{question} {sub_question}")


def dangling(text: str, code: str | None) -> bool:
    """A claim that introduces what it does not show ("On Windows, run:", "For example:") with no
    code after it says nothing a reader can use."""
    return not code and text.rstrip().endswith(":")


def same_question(sub_question: str, question: str) -> bool:
    """Whether a sub-question is the reader's question itself (the plan's first)."""
    return sub_question.strip().rstrip("?.! ").lower() == question.strip().rstrip("?.! ").lower()
