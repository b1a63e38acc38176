"""The names a part asks about that the documents never write: a gap words alone can prove.

Whether cited passages answer a part is a judgement (``coverage``, ``meaning``), and a question in a
user's own words can defeat it both ways. A name is different: "Is FastAPI faster than the
standard library's server?" asked of documents that never write "FastAPI" cannot be answered by
them, however near their passages about servers stand. So a part with a name (``reading.names``)
that no passage of the corpus holds, nor any passage gathered for it from elsewhere, is unanswered
and the name goes under Gaps; what the documents say nearby is still shown, as near, not as the
answer ("my Flask app" in a question they otherwise answer hedges that answer, it does not hide it).

A name of several words is the words together: documents that write "recycle" and "bin" in other places,
but never "recycle bin", say nothing about the Recycle Bin. Such a name is unmentioned when no two of its
neighbouring words stand together in any passage ("Windows Task Scheduler" is mentioned by "Task Scheduler").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

from deepr_mcp.research.corpus.fts import match_expression, phrase_tokens
from deepr_mcp.research.reading.names import names
from deepr_mcp.research.synthesis.meaning import spoken

__all__ = ["unmentioned", "unwritten"]


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def neighbours(name: str) -> list[list[str]]:
    """Each two neighbouring words of a name written with spaces, when all are words (not "Ctrl-C"'s "c" nor a
    version's digit): "Windows Task Scheduler" -> [windows, task], [task, scheduler]."""
    words = name.lower().split()
    if any(len(re.findall(r"[a-z]", w)) < 2 for w in words):
        return []
    return [[a, b] for a, b in pairwise(words)]


def _unwritten_test(corpus: Any, gathered: Sequence[str]) -> Callable[[str], bool] | None:
    """Whether a word is one no passage of ``corpus`` holds and no ``gathered`` text uses (a stop word says nothing
    either way); None for a corpus that cannot count its words or holds no passage: every word would be unwritten."""
    count = getattr(corpus, "document_frequency", None)
    total = getattr(corpus, "passage_count", None)
    if count is None or total is None or total() == 0:
        return None
    seen = set().union(*(_words(t) for t in gathered)) if gathered else set()

    def unwritten_word(word: str) -> bool:
        word = word.lower()
        return match_expression(word) is not None and word not in seen and count(word) == 0

    return unwritten_word


def unmentioned(corpus: Any, text: str, gathered: Sequence[str] = ()) -> list[str]:
    """The names of ``text`` with a word no passage of ``corpus`` holds and no ``gathered`` text uses (stop
    words say nothing either way), or of several words no two neighbours of which stand together in a passage
    or a gathered text. Empty for a corpus that cannot count its words or holds no passage: it would call every
    name unmentioned."""
    unwritten_word = _unwritten_test(corpus, gathered)
    if unwritten_word is None:
        return []
    together = getattr(corpus, "phrase_frequency", None)
    written = [f" {phrase_tokens(t)} " for t in gathered]  # tokenised as the index does, so both checks agree
    out = []
    for name in names(text):
        if any(unwritten_word(w) for w in _words(name)):
            out.append(name)
        elif together is not None and (pairs := neighbours(name)):
            phrases = [f" {phrase_tokens(' '.join(pair))} " for pair in pairs]
            if not any(together(pair) or any(p in w for w in written) for pair, p in zip(pairs, phrases, strict=True)):
                out.append(name)
    return out


def unwritten(
    corpus: Any, phrases: Sequence[str], gathered: Sequence[str] = (), heavy: set[str] | None = None
) -> list[str]:
    """The ``phrases`` with a word no passage of ``corpus`` holds and no ``gathered`` text uses, each trimmed to
    the words from its first such word to its last ("down what uptime" -> "uptime"): what a Gaps line may say
    "the documents say nothing about". A phrase the retrieved passages miss but every word of which the corpus
    writes somewhere ("drop or middle", "work and home machines") is not something the documents are silent
    on: the part is still a gap, for the reason its passages give. With ``heavy`` (the words that carry the
    part's meaning, ``meaning.heavy_words``) only such words count: in "my aunt keeps nagging me about the noise
    of the kiln", unwritten "aunt" and "nagging" are asides, and naming them says nothing of what was asked.
    Every phrase for a corpus that cannot count its words."""
    unwritten_word = _unwritten_test(corpus, gathered)
    if unwritten_word is None:
        return list(phrases)

    def silent(word: str) -> bool:
        parts = re.findall(r"\w+", word)
        weighs = heavy is None or bool(heavy & {w.lower() for w in [*spoken(word), *parts]})
        return weighs and any(unwritten_word(part) for part in parts)

    out = []
    for phrase in phrases:  # trimmed to its unwritten words and what stands between them
        words = phrase.split()
        marks = [i for i, w in enumerate(words) if silent(w)]
        if marks:
            out.append(" ".join(words[marks[0] : marks[-1] + 1]))
    return list(dict.fromkeys(out))
