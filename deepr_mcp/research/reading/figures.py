"""Questions that ask for a figure, and whether a text gives one.

"How many firings does a kiln element last?" is answered by a number, "until when will kiln model 11 get spare
parts?" by a date, "how long does the kiln take to cool?" by a duration ("about a day"). Passages on the
topic that give none do not answer it, however close they stand: the documents' silence on the figure is
what the reader must be told. English marks both sides in its grammar, not in any topic's words: the
question opens (or opens its clause) with "how many", "how much", "how long", "until when", "what share
of"; an answer holds a numeral, a number word, or a unit of time counted by "a", "an" or "per".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["asks_figure", "states_figure", "unfigured", "without_asking"]

_ASKS = re.compile(
    r"(?:^|[.?!]\s+)(?:[^.?!,]*,\s*)?(?:and\s+|but\s+|so\s+)?(?:roughly\s+|about\s+|approximately\s+)?"
    r"(?:how\s+(?:many|much|long|big|large|small|fast|slow|often|old|far|soon)|until\s+when|by\s+when|"
    r"what\s+(?:share|percentage|proportion|fraction)\s+of)\b",
    re.I,
)
"""A sentence or clause asking for a quantity or a date; "how do I find out how many ..." asks how, not how many."""
_NUMBER_WORDS = (
    "two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty sixty "
    "hundred hundreds thousand thousands million millions billion half twice thrice dozen dozens"
).split()
_UNITS = "second|minute|hour|day|week|fortnight|month|year|decade|byte|kilobyte|megabyte|gigabyte|percent"
_FIGURE = re.compile(
    r"\b(?:" + "|".join(_NUMBER_WORDS) + r")\b"
    rf"|\b(?:a|an|per|every|each)\s+(?:{_UNITS})s?\b"
    r"|\b(?:no|any)\s+(?:limit|maximum|minimum)\b|\bunlimited\b|\bany number of\b",
    re.I,
)
"""A figure as English writes one: a numeral, a number word, "a day", "per minute", or that there is no limit ("one"
and "once" are left out: they are pronouns and conjunctions far more often than counts)."""
_NUMERAL = re.compile(r"(?<![\w\-.@#])\d+(?:[.,:]\d+)*")
"""A numeral standing alone or before its unit ("30", "3.11", "100MB"), not inside a name ("sha256", "utf-8",
"npm@5", "#123")."""
FIGURE_FINDINGS = 3
"""The findings of a part that must give its figure: the findings step's best, which its answer opens with; a
number further down is most often about something else (a version, a default, an issue number)."""


_ASKING = re.compile(
    r"\b(?:how\s+(?:many|much|long|big|large|small|fast|slow|often|old|far|soon)|until\s+when|by\s+when|"
    r"what\s+(?:share|percentage|proportion|fraction)\s+of)\b",
    re.I,
)


def without_asking(text: str) -> str:
    """``text`` without the words that ask for a figure: no document need write "long" to say how long."""
    return " ".join(_ASKING.sub(" ", text).split()) if asks_figure(text) else text


def asks_figure(question: str) -> bool:
    """Whether ``question`` (one part of it) asks for a quantity or a date."""
    return bool(_ASKS.search(" ".join(question.split())))


def states_figure(text: str, question: str = "") -> bool:
    """Whether ``text`` gives a figure other than the numerals ``question`` itself writes ("11" asked about is
    not an answer to "until when will model 11 get spare parts?")."""
    asked = set(_NUMERAL.findall(question))
    if any(numeral not in asked for numeral in _NUMERAL.findall(text)):
        return True
    return bool(_FIGURE.search(text))


def unfigured(part: str, question: str, findings: Iterable[str]) -> bool:
    """Whether ``part`` asks for a figure and none of its first ``FIGURE_FINDINGS`` ``findings`` (each a claim with
    its code, best first) gives one."""
    return asks_figure(part) and not any(states_figure(text, question) for text in list(findings)[:FIGURE_FINDINGS])
