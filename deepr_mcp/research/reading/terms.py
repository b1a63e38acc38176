"""The content terms of research text: tokens minus the generic words of question templates.

"Which functions are used to glaze a bisque pot?" should be judged on "glaze", "bisque" and
"pot", not on "functions" or "used", or every planned sub-question looks unanswered.
"""

from __future__ import annotations

from deepr_mcp.text.tokenizer import tokenize

GENERIC = frozenset(
    tokenize(
        # the words of a question's frame, which say what kind of answer is wanted, not what about; synthesis
        # judges coverage by these terms, and an empty list lost 1-3 questions per corpus (issue 29 item 6)
        "functions methods used options parameters change example shows documentation documented warn warnings "
        "protect caveats errors caused differ difference rather instead deprecated replaces version added changed "
        "known say says use using safely safe between"
    )
)


def terms(text: str) -> set[str]:
    """Content terms: the stemmed words of ``text`` without the generic words of question templates."""
    return {t for t in tokenize(text) if t not in GENERIC}


def listed_terms(words: str) -> set[str]:
    """The terms of a comma-separated list in a prompt ("Key terms: tar, archive"), read as claims are."""
    return terms(words.replace(",", " "))


def coverage(wanted: set[str], text: str) -> float:
    """Share of ``wanted`` terms that ``text`` contains (0 when nothing is wanted)."""
    if not wanted:
        return 0.0
    return len(wanted & terms(text)) / len(wanted)
