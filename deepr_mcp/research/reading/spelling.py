"""Spellings of one word: "colour" and "color", "centre" and "center", "initialise" and "initialize".

A user writes the spelling they learnt and the documents theirs; stems do not meet ("initialis" and
"initi"), so a judge counting words would say the documents never mention what they spell another
way. English spellings of one word differ by a few kinds of step, whatever the word: a vowel more or
less ("colour"), two letters swapped ("centre"), "s" for "z" ("analyse"), a doubled consonant
("travelling"). One such step between two words of five letters or more is taken for one word
spelt twice. A vowel swapped for another is not such a step ("better", "butter"): it makes most
other words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["respellings", "spelt_otherwise", "words"]

MIN_LETTERS = 5
"""Shorter words are one step from too many others ("form", "from")."""
_VOWELS = "aeiouy"
_WORD = re.compile(r"[a-z]+")


def words(text: str) -> set[str]:
    """The lower-case words of ``text``, as written (no stems): what a spelling is compared with."""
    return set(_WORD.findall(text.lower()))


def respellings(word: str) -> set[str]:
    """The spellings one step from ``word`` (empty for a word shorter than ``MIN_LETTERS``)."""
    word = word.lower()
    if len(word) < MIN_LETTERS or not word.isalpha():
        return set()
    out: set[str] = set()
    for i, letter in enumerate(word):
        if letter in _VOWELS and i > 0:
            out.add(word[:i] + word[i + 1 :])  # colour -> color
        if letter in "sz":
            out.add(word[:i] + ("z" if letter == "s" else "s") + word[i + 1 :])  # analyse -> analyze
        if i + 1 < len(word):
            out.add(word[:i] + word[i + 1] + letter + word[i + 2 :])  # centre -> center
        if letter not in _VOWELS:
            out.add(word[: i + 1] + letter + word[i + 1 :])  # traveling -> travelling
            if word[i + 1 : i + 2] == letter:
                out.add(word[:i] + word[i + 1 :])  # travelling -> traveling
    for i in range(1, len(word) + 1):
        out.update(word[:i] + vowel + word[i:] for vowel in _VOWELS)  # color -> colour
    out.discard(word)
    return {w for w in out if len(w) >= MIN_LETTERS}


def spelt_otherwise(word: str, vocabulary: Iterable[str] | set[str]) -> bool:
    """Whether ``vocabulary`` (lower-case words) writes ``word`` another way."""
    known = vocabulary if isinstance(vocabulary, set) else set(vocabulary)
    return bool(respellings(word) & known)
