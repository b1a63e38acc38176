"""How documentation words a caveat, a change note or an answer: the one vocabulary every stage reads.

Retrieval boosts passages that carry these cues, synthesis keeps the sentences that do, and the
local provider orders its answer by them; so the words are written here once. Cues, not rules: a
sentence without them can still answer.
"""

from __future__ import annotations

import re

CAVEAT_WORDS = (
    "warning",
    "caution",
    r"danger\w*",
    "never",
    "must not",
    "should not",
    "do not",
    "don't",
    "not safe",
    "unsafe",
    "insecure",
    "untrusted",
    "malicious",
    "security",
    r"vulnerab\w*",
    r"attack\w*",
    "deprecated",
    "note that",
    "be careful",
    "avoid",
)
"""What a warning says (regular-expression pieces)."""
CAVEAT = re.compile(r"\b(" + "|".join(CAVEAT_WORDS) + r")\b", re.I)
QUALIFIERS = (
    r"warn\w*",
    "does not",
    "cannot",
    "can't",
    "trusted",
    r"secur\w*",
    "careful",
    r"avoid\w*",
    r"risk\w*",
    "only (?:if|when|use|for)",
    "raises?",
    "errors?",
    "exceptions?",
    "fails?",
    "failure",
    r"limit\w*",
    "not (?:guaranteed|supported|thread-safe|portable)",
)
"""What a sentence that limits or qualifies says, beyond a warning's words."""
CAVEAT_CUE = r"\b(?:" + "|".join(CAVEAT_WORDS + QUALIFIERS) + r")\b"
"""A caveat in the wide sense (a warning or a limit): what a "what are the risks" finding says."""
ADMONITIONS = ("warning", "caution", "danger", "important")
"""The labels a documentation admonition opens with ("Warning: ...")."""

_CHANGED_IN = r"(?:new|changed|added) in"
OPENS_WITH_VERSION_NOTE = re.compile(rf"^(?:{_CHANGED_IN} version|deprecated since version)", re.I)
"""A sentence that is a change note of its own ("Changed in version 3.2: ...")."""

ANSWER_CUES = {
    "comparison": re.compile(
        r"\b(recommended|recommend|prefer\w*|instead|rather than|unlike|whereas|in contrast|compared|differ\w*|"
        r"faster|slower|smaller|simpler|more (?:efficient|advanced|flexible|powerful)|same as|equivalent to|"
        r"advanced use|use cases?)\b",
        re.I,
    ),
    "why": re.compile(
        r"\b(because|caused?|due to|as a result|therefore|cannot|can't|must not|raises?|only (?:if|when))\b",
        re.I,
    ),
    "definition": re.compile(
        r"^(?:an? |the )?[\w .`()-]{1,60}? (?:is|are|refers to|means) (?:an?|the|used)\b", re.I | re.M
    ),
}
"""Sentences that answer a kind of question tend to use these words: cues, not requirements."""
