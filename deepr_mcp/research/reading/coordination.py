"""The two things an English "A or B" offers to choose between, read as the parallel phrases they are.

"Should I <verb> A or B?" is read as a comparison, and each side becomes a part of its own ("What does
B do?"). The words around "or" belong to one side or the other only by English structure, which a
pattern cannot see: the left side runs back to the verb, the right side on to the end. These rules of
the language put the boundaries where they are:

- a purpose clause after B ("... or B to measure elapsed time") is said of both sides, not part of B;
- "or" inside a purpose clause of A ("use the module to make tokens or passwords") joins that clause's
  objects: the question chooses nothing, it asks about one thing;
- "A, or is it B?" / "A, or will B?" asks whether, with an alternative outcome, not which thing;
- conjuncts are parallel: a right side of one word, a name, pairs with the name the left side ends on
  ("look things up in a table with t[k] or t.get(k)" chooses between ``t[k]`` and ``t.get(k)``). Longer
  sides are left whole: how far back a phrase runs ("the top shelf of the kiln or the floor") is grammar;
- a right side that opens with a preposition where the left side does not ("fire the mugs in the big kiln
  or just in the small one") offers two ways or places of doing one thing, not two things: no part asks
  what either is ("fire with gas or with wood" compares gas and wood);
- a right side that opens with a verb and its object ("keep the notes in a binder, or just write them on
  the pot?") offers two courses of action; the question's own verb again ("use a slip or use a glaze")
  is said of both sides and left out. A verb is known by the object it opens (a determiner or a pronoun
  after it: no English noun is followed by one).
"""

from __future__ import annotations

import re

AUXILIARY = r"(?:will|would|could|can|does|do|did|is|are|was|were|should|might|may|must|has|have|am)"
"""English auxiliaries and modal verbs (a closed class): a clause they open asks whether."""
_ASKS_WHETHER = re.compile(r"^(?:" + AUXILIARY + r"|there)\b", re.I)
_PURPOSE = re.compile(r"\s+(?:in order\s+)?to\s+[a-z]\w*\b.*$", re.I)
ARTICLES = r"the|a|an|my|our|your|their|its|his|her|this|that|these|those"
_ARTICLE = re.compile(rf"^(?:{ARTICLES})$", re.I)
_OBJECT = re.compile(rf"^(?:{ARTICLES}|some|any|every|each|all|no|one|two|\d+|it|them|him|us|me)$", re.I)
"""Determiners and object pronouns (closed classes), which open a verb's object: the word before one is a verb."""
_FOCUS = re.compile(r"^(?:just|only|simply|merely|rather|instead|maybe|perhaps)\s+", re.I)
"""Focusing adverbs ("or just B"): they stand before the alternative, not in it."""
_PREPOSITION = re.compile(
    r"^(?:in|inside|into|on|onto|at|for|from|to|with|without|within|under|over|through|across|by|via|outside|"
    r"per|behind|beside|near|between|among|around|after|before|during)$",
    re.I,
)
"""English prepositions (a closed class): a side opening with one says where or how, not which thing."""
SLACK = 2
"""Words the left side may have beyond a one-word right side before it is read as running back into the
question's own words ("things up in a table with t[k]"): a name, its article and one adjective."""


def parallel_sides(a: str, b: str, verb: str = "") -> tuple[str, str] | None:
    """The two things ``a`` "or" ``b`` chooses between (``verb``: the question's verb before ``a``), or None when
    the "or" offers no choice of things."""
    b = b.split(",", 1)[0].strip()
    if not a or not b or _ASKS_WHETHER.match(b) or _PURPOSE.search(a):
        return None
    b = _PURPOSE.sub("", _FOCUS.sub("", b)).strip()
    right = b.split()
    if right and verb and right[0].lower() == verb.lower():
        right = right[1:]  # "use a slip or use a glaze": the verb is said of both sides
    elif len(right) > 1 and _OBJECT.match(right[1]) and not _OBJECT.match(right[0]):
        return None  # "or just write them on the pot": another course of action, not another thing
    b, left = " ".join(right), a.split()
    if right and left and _PREPOSITION.match(right[0]) and not _PREPOSITION.match(left[0]):
        return None  # "fire the mugs in the big kiln or just in the small one": two ways of doing one thing
    if len(right) == 1 and len(left) > 1 + SLACK:
        start = len(left) - 1
        for back in range(SLACK, 0, -1):  # "a paper notebook" pairs with "spreadsheets": its article goes with it
            if _ARTICLE.match(left[start - back]):
                start -= back
                break
        left = left[start:]
    return (" ".join(left), b) if left and right else None
