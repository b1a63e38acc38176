"""Operators and keywords a question writes as code, searched by their names and as code.

A word index cannot find ``==`` (punctuation is no token) nor ``is`` (a stop word, in every
passage), yet documentation explains operators in words: "Identity comparisons", "equality",
"floor division". So the operators a question names are translated to those words with a
standard glossary of programming-language operator names, the way a reader would look them up.
An operator counts as named when it is written as a symbol (``==``, ``**``), in backticks
(`` `is` ``), or as a keyword called an operator ("the is operator", "the in keyword").

Keywords that are also English function words ("with", "for", "is") are dropped as stop words,
so "Can a for loop run backwards?" loses its subject. When the question names such a
word as a construct ("a with block", "the for loop", `` `with` ``), passages that write it as a
construct too (`` `with` ``, "The with statement") are about it.
"""

from __future__ import annotations

import re

NAMES: dict[str, str] = {
    "==": "equality equal",
    "!=": "inequality equal",
    "<": "comparison less",
    ">": "comparison greater",
    "<=": "comparison less equal",
    ">=": "comparison greater equal",
    "is": "identity",
    "is not": "identity",
    "in": "membership",
    "not in": "membership",
    "and": "boolean",
    "or": "boolean",
    "not": "boolean negation",
    "+": "addition concatenation",
    "*": "multiplication repetition unpacking",
    "/": "division",
    "//": "floor division",
    "%": "modulo remainder",
    "**": "power exponentiation",
    "@": "matrix multiplication decorator",
    "&": "bitwise intersection",
    "|": "bitwise union",
    "^": "bitwise exclusive",
    "~": "bitwise inversion",
    "<<": "shift",
    ">>": "shift",
    "=": "assignment",
    ":=": "assignment expression",
    "+=": "augmented assignment",
    "-=": "augmented assignment",
    "*=": "augmented assignment",
    "/=": "augmented assignment",
    "->": "return annotation",
}
"""Operator -> the words documentation uses for it (few and specific: they become search terms).
A lone ``-`` and ``...`` are left out: in a question they are far more often a dash or an ellipsis."""

_SYMBOL = re.compile(
    r"(?<![\w=!<>:*/%&|^~@+\-.])("
    + "|".join(re.escape(s) for s in sorted((k for k in NAMES if not k[0].isalpha()), key=len, reverse=True))
    + r")(?![\w=!<>:*/%&|^~@+\-.])"
)
_BACKTICKED = re.compile(r"`([^`]+)`")
_KEYWORD_CALLED = re.compile(r"\b(is not|not in|is|in|and|or|not)\s+(?:operators?|keywords?)\b", re.I)


def named_operators(text: str) -> list[str]:
    """The operators ``text`` names, in order, without duplicates."""
    found: list[str] = []
    for match in _BACKTICKED.finditer(text):
        name = match.group(1).strip().lower()
        if name in NAMES:
            found.append(name)
    unquoted = _BACKTICKED.sub(" ", text)
    found += [m.group(1) for m in _SYMBOL.finditer(unquoted)]
    found += [" ".join(m.group(1).lower().split()) for m in _KEYWORD_CALLED.finditer(unquoted)]
    return list(dict.fromkeys(found))


def operator_words(text: str) -> list[str]:
    """The names of the operators ``text`` names ("==" -> "equality", "equal"), without duplicates."""
    return list(dict.fromkeys(w for op in named_operators(text) for w in NAMES[op].split()))


KEYWORDS = frozenset(
    "and as async await del elif else except for from if import in is not or pass while with yield".split()
)
"""Keywords of common programming languages that prose also uses as plain words."""
_CONSTRUCT = r"(?:statements?|operators?|keywords?|blocks?|clauses?|loops?|expressions?)"
_KEYWORD_CONSTRUCT = re.compile(r"\b(" + "|".join(sorted(KEYWORDS)) + r")\s+" + _CONSTRUCT + r"\b", re.I)


def named_keywords(text: str) -> list[str]:
    """The keywords ``text`` names as constructs ("a with block" -> "with"), in order, once each."""
    found = [m.group(1).lower() for m in _BACKTICKED.finditer(text) if m.group(1).strip().lower() in KEYWORDS]
    found += [m.group(1).lower() for m in _KEYWORD_CONSTRUCT.finditer(_BACKTICKED.sub(" ", text))]
    return list(dict.fromkeys(found))


def writes_keyword(text: str, keyword: str) -> bool:
    """Whether ``text`` writes ``keyword`` as code (`` `with` ``, `` `with open(p) as f:` ``) or as a
    construct ("The for statement", "Loops with a for clause")."""
    word = re.escape(keyword)
    return bool(
        re.search(r"`" + word + r"(?:`|\s[^`\n]*`)", text)
        or re.search(r"\b" + word + r"\s+" + _CONSTRUCT + r"\b", text, re.I)
    )
