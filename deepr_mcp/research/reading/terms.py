"""The content terms of research text: tokens minus the generic words of question templates.

"Which functions are used to extract a tar archive?" should be judged on "extract", "tar" and
"archive", not on "functions" or "used", or every planned sub-question looks unanswered.
"""

from __future__ import annotations

from deepr_mcp.text.tokenizer import tokenize

GENERIC = frozenset(
    tokenize(
        "background history key figures dates numbers describe described problems risks limitations reported "
        "current state outcome overview today nowadays currently explain "
        # the words of the planner's sub-questions, which say what kind of answer is wanted, not what about
        "functions methods used options parameters change example shows documentation documented warn warnings "
        "protect caveats errors caused differ difference rather instead deprecated replaces version added changed "
        "known say says use using safely safe between"
    )
)


DOC_WORDS: dict[str, str] = {
    "folder": "directory",
    "subfolder": "subdirectory",
    "keep": "preserve",
    "delete": "remove",
    "env": "environment",
    "dir": "directory",
    "config": "configuration",
    "args": "arguments",
    "regex": "regular expression",
    "regexp": "regular expression",
}
"""How a user says it -> how software documentation says it. Kept small on purpose: only everyday or
abbreviated words whose documentation word is standard across manuals ("folder" is the desktop's
word, "directory" the manual's; "keep its timestamps" is "preserve metadata"; "env" is short for
"environment"). Anything topic-specific is left to the corpus-derived feedback."""
_DOC_STEMS = {stem: words for word, words in DOC_WORDS.items() for stem in tokenize(word)[:1]}
_AS_DOCUMENTED = {
    stem: tuple(tokenize(words)) for stem, words in _DOC_STEMS.items() if stem not in tokenize("env dir config args")
}
"""Read so on both sides of a comparison of texts; abbreviations are not, since documentation writes
them as code (``parse_args``, the ``env`` parameter) where they do not mean the spelled-out word."""


def terms(text: str) -> set[str]:
    """Content terms, the user's everyday words read as the documentation's ("folder" as "directory"):
    a question about folders is answered by a sentence about directories, and judged so."""
    out: set[str] = set()
    for t in tokenize(text):
        if t not in GENERIC:
            out.update(_AS_DOCUMENTED.get(t, (t,)))
    return out


def listed_terms(words: str) -> set[str]:
    """The terms of a comma-separated list in a prompt ("Key terms: tar, archive"), read as claims are."""
    return terms(words.replace(",", " "))


def coverage(wanted: set[str], text: str) -> float:
    """Share of ``wanted`` terms that ``text`` contains (0 when nothing is wanted)."""
    if not wanted:
        return 0.0
    return len(wanted & terms(text)) / len(wanted)


def doc_words(text: str) -> dict[str, str]:
    """The documentation's words for the user's words in ``text``: {user stem: documentation words}."""
    found: dict[str, str] = {}
    for stem in tokenize(text):
        if stem in _DOC_STEMS:
            found.setdefault(stem, _DOC_STEMS[stem])
    return found


USER_WORD_WEIGHT = 0.45
"""An everyday word the documentation says otherwise ("folder"): still scored, but below the 0.5 at which
``signals.coordination`` counts a term as one a passage must hold."""


def weigh_doc_words(text: str, weights: dict[str, float], default: float) -> list[str]:
    """Add to ``weights`` the documentation's words for the everyday words of ``text``, each at the
    weight of the word it stands for (``default`` when that word is not weighted), and make the
    everyday word optional: a passage saying "directory" lacks nothing for not saying "folder".
    Returns the documentation's words, to be searched too."""
    found = doc_words(text)
    for stem, words in found.items():
        weight = weights.get(stem, default)
        for term in tokenize(words):
            weights[term] = max(weights.get(term, 0.0), weight)
        if stem in weights:
            weights[stem] = min(weights[stem], USER_WORD_WEIGHT)
    return list(found.values())
