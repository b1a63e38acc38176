"""Claims as a careful reader judges them: what a passage says, whether a claim is in it, repeats.

A passage is prose sentences and fenced code blocks; a code block belongs to the sentence that
introduces it ("To extract an archive:"), so a claim can carry its code. A claim is supported
by a passage when the passage contains it (after normalising whitespace and quotes) or, for a
paraphrase, when the passage holds nearly all of the claim's content terms; two claims are the
same claim when their content terms nearly coincide.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepr_mcp.research.terms import terms

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\bi\.e\.)(?<!\be\.g\.)(?<!\bcf\.)(?<!\bvs\.)\s+(?=[A-Z0-9\"'(`*_\[])")
"""A sentence ends at ., ! or ? before a capital, but not after an abbreviation ("(i.e. `x`...")."""
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00b6": " "})
SUPPORT_THRESHOLD = 0.8
"""Share of a paraphrased claim's content terms its passage must hold to count as support."""
DUPLICATE_THRESHOLD = 0.7


@dataclass(frozen=True, slots=True)
class Unit:
    """A sentence of a passage, with the code block it introduces (if any)."""

    text: str
    code: str | None = None
    index: int = 0


def normalise(text: str) -> str:
    """Lower case, plain quotes, no markdown emphasis or backticks, single spaces."""
    text = text.translate(_QUOTES).replace("`", "").replace("**", "")
    return " ".join(text.lower().split())


def units(text: str) -> list[Unit]:
    """Sentences in order; a fenced code block is attached to the sentence just before it."""
    out: list[Unit] = []
    position = 0
    for match in _FENCE.finditer(text):
        out += _sentences(text[position : match.start()], len(out))
        code = match.group(1).rstrip("\n")
        if out and out[-1].code is None and code.strip():
            out[-1] = Unit(out[-1].text, code, out[-1].index)
        elif code.strip():
            out.append(Unit("", code, len(out)))
        position = match.end()
    out += _sentences(text[position:], len(out))
    return out


_ASIDE = re.compile(
    r"\((?:Contributed|Patch|Original patch|Suggested|Written|Implemented|Fixed|Reported|Backported|Proposed)"
    r" by [^()]*\)\.?\s*"
)
_SOURCE_LINK = re.compile(r"(?:(?<=^)|(?<=[.!?]\s))Source code: \S+\s+")
"""A page's "Source code: Lib/venv/" link glued before its first sentence: navigation, not a claim."""
_LIST_MARK = re.compile(r"^[-*\u2022]\s+")
"""A list item's mark left at the start of a sentence ("- To reduce memory usage, ...")."""


def _sentences(prose: str, start: int) -> list[Unit]:
    flat = _SOURCE_LINK.sub("", " ".join(_ASIDE.sub("", prose).split()))
    found = [_LIST_MARK.sub("", s.strip()) for s in _SENTENCE_END.split(flat)]
    return [Unit(s, None, start + i) for i, s in enumerate(found) if s]


def support(claim: str, passage_text: str) -> float:
    """1.0 when the passage contains the claim; otherwise the share of its content terms it holds."""
    if normalise(claim) in normalise(passage_text):
        return 1.0
    wanted = terms(claim)
    if not wanted:
        return 0.0
    return len(wanted & terms(passage_text)) / len(wanted)


def code_in(code: str, passage_text: str) -> bool:
    """Whether a code block is quoted from the passage (whitespace aside)."""
    squeeze = "".join(code.split())
    return bool(squeeze) and squeeze in "".join(passage_text.split())


def same_claim(a: str, b: str) -> bool:
    """Near-duplicates: identical after normalising, or content terms that nearly coincide."""
    if normalise(a) == normalise(b):
        return True
    ta, tb = terms(a), terms(b)
    if not ta or not tb:
        return False
    overlap = len(ta & tb)
    if overlap / len(ta | tb) >= DUPLICATE_THRESHOLD:
        return True
    small = min(len(ta), len(tb))
    return small >= 4 and overlap / small >= 0.9  # one says all the other does, and a bit more


def adds_nothing(new: str, old: str) -> bool:
    """Whether ``new`` says nothing that ``old`` does not: a near-copy, or its terms nearly all in ``old``.

    Unlike :func:`same_claim` this is one-way: a longer claim that holds a shorter one and more
    ("There is new syntax := ... It is known as the walrus operator" against "the walrus operator
    := assigns a variable") is not dropped for it.
    """
    if normalise(new) == normalise(old):
        return True
    tn, to = terms(new), terms(old)
    if not tn or not to:
        return False
    overlap = len(tn & to)
    return overlap / len(tn | to) >= DUPLICATE_THRESHOLD or (len(tn) >= 4 and overlap / len(tn) >= 0.9)
