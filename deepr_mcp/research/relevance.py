"""Whether a finding speaks to its sub-question: the floor below which a report says "not found".

A plan asks "What does the documentation warn about when you extract a tar archive?" and "Which
options change how you extract a tar archive?". The best sentences retrieved for such a
sub-question always share its topic words ("extract", "tar"), so a score relative to the best
candidate prints whatever is nearest: ownership flags under "how to protect against path
traversal", ``ZipFile.extractall`` under the tar warnings. Sharing the topic is not enough; a
finding must also be the kind of statement the sub-question asks for: a warning or a caveat
for "warn about", a parameter for "which options", code or a named call for "which functions",
a version note for "in which version". A sub-question whose candidates are none of that is a
gap, named as such, not a list of filler.

The cues are about the form of the answer, not its topic, so they hold for any corpus. A
comparison's "how do A and B differ?" has none: "Lists are mutable" answers it by juxtaposition,
with no contrast word to find.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from deepr_mcp.research.terms import terms

CAVEAT_CUE = (
    r"\b(?:warn\w*|caution|danger\w*|never|must not|should not|do not|don't|does not|"
    r"cannot|can't|not safe|unsafe|insecure|untrusted|trusted|malicious|secur\w*|vulnerab\w*|attack\w*|"
    r"outside|deprecated|note that|be careful|careful|avoid\w*|risk\w*|only (?:if|when|use|for)|"
    r"raises?|errors?|exceptions?|fails?|failure|limit\w*|not (?:guaranteed|supported|thread-safe|portable))\b"
)
PROTECT_CUE = CAVEAT_CUE + r"|\b(?:safe\w*|validat\w*|sanitiz\w*|sanitis\w*|check\w*|filter\w*|verif\w*|absolute)\b"
PARAMETER_CUE = (
    r"\b(?:parameters?|options?|arguments?|keyword|flags?|defaults?|if (?:the )?(?:optional )?\w+ is (?:given|true|"
    r"false|none|set|specified|omitted|not)|optional|specif\w+|pass(?:ing|ed)?)\b|\w=\S|--?\w"
    r"|`[^`]*\w\([^`)]+\)`"  # a signature in the text names the parameters: `asyncio.wait_for(aw, timeout)`
)
CODE_NAME_CUE = r"`[^`]+`|\b\w+\.\w+\(|\b\w+\(\)|\b[a-z]+_[a-z_]+\b"
EXAMPLE_CUE = r"\bfor example\b|\be\.g\.|\bfor instance\b|\bsuch as\b|>>>|\bexample\b"
VERSION_CUE = (
    r"\b(?:new|changed|added|deprecated|removed) (?:in|since) (?:version |python )?\d|\bversion \d|\bpython \d"
)

WARN_ASK = (
    r"\bwarn\w*\b|\brisks?\b|\bcaveats?\b|\bpitfalls?\b|\berrors?\b|\blimitations?\b|\bproblems?\b|\bgotchas?\b|"
    r"\bdangers?\b|\bwatch out\b|\blook out\b|\bbeware\b"
)
ASKS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (re.compile(ask, re.I), re.compile(cue, re.I))
    for ask, cue in (
        (r"\bprotect\b|\bprevent\b|\bguard against\b", PROTECT_CUE),
        (WARN_ASK, CAVEAT_CUE),
        (r"\boptions?\b|\bparameters?\b|\barguments?\b", PARAMETER_CUE),
        (r"\bwhich functions\b|\bwhich methods\b|\bfunctions or methods\b", CODE_NAME_CUE),
        (r"\bexamples?\b", EXAMPLE_CUE),
        (r"\bin which version\b|\bwhich version\b|\bdeprecated\b", VERSION_CUE + r"|\bdeprecat\w*|\breplac\w*"),
    )
)
"""What a sub-question asks for (its wording) -> what a statement of that kind says."""


@dataclass(frozen=True, slots=True)
class Ask:
    """What one sub-question wants from a finding."""

    cues: tuple[re.Pattern[str], ...]
    """The finding must match one of these (none: any finding on the topic will do)."""
    code_answers: bool
    """Quoted code counts as the answer (an example, a function, an option in a call)."""


def ask_of(sub_question: str) -> Ask:
    """The kinds of statement that answer ``sub_question``, read from its wording."""
    cues = tuple(cue for ask, cue in ASKS if ask.search(sub_question))
    code = bool(
        re.search(r"\bexamples?\b|\bfunctions?\b|\bmethods?\b|\boptions?\b|\bparameters?\b", sub_question, re.I)
    )
    return Ask(cues, code)


def ask_of_question(question: str) -> Ask:
    """What the reader's own question asks for: only a question about dangers ("what should I watch out
    for when ...", "what are the risks of ...") narrows its findings, to warnings and caveats; any
    other takes every on-topic statement, since its findings also make up the direct answer."""
    warns = re.search(WARN_ASK, question, re.I) and not re.search(r"\berrors?\b|\bproblems?\b", question, re.I)
    return Ask((re.compile(CAVEAT_CUE, re.I),), False) if warns else Ask((), False)


def answers(ask: Ask, text: str, code: str | None = None) -> bool:
    """Whether a claim (with the code it quotes) is the kind of statement the sub-question asks for."""
    if not ask.cues:
        return True
    if code and ask.code_answers:
        return True
    return any(cue.search(text) for cue in ask.cues)


def on_topic(text: str, heading: str, wanted: set[str]) -> bool:
    """Whether the claim or the heading it sits under names anything the question is about."""
    return bool(wanted and (terms(text) | terms(heading)) & wanted)


def relevant(sub_question: str, text: str, heading: str, wanted: set[str], code: str | None = None) -> bool:
    """The floor a finding must clear: on the question's topic, and the kind of answer asked for."""
    return (bool(code) or on_topic(text, heading, wanted)) and answers(ask_of(sub_question), text, code)


class FindingLike(Protocol):
    claim: str
    passage_ids: list[str]
    code: str | None


def answered_by(sub_question: str, findings: Iterable[FindingLike], passage_ids: set[str], wanted: set[str]) -> bool:
    """Whether a finding reported elsewhere, from one of these passages, answers ``sub_question`` too:
    its section is then empty because the answer is above, not because the corpus lacks one."""
    return any(
        set(f.passage_ids) & passage_ids and relevant(sub_question, f.claim, "", wanted, f.code) for f in findings
    )
