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
from functools import lru_cache

from deepr_mcp.research.reading.cues import ADMONITIONS
from deepr_mcp.research.reading.terms import GENERIC, terms
from deepr_mcp.text.tokenizer import tokenize

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_SENTENCE_END = re.compile(
    r"(?<=[.!?])(?<!\bi\.e\.)(?<!\be\.g\.)(?<!\bcf\.)(?<!\bvs\.)(?<!\s\.\.)\s+(?=[A-Z0-9\"'(`*_\[])"
)
"""A sentence ends at ., ! or ? before a capital, but not after an abbreviation ("(i.e. `x`...") or two
dots set apart by a space, which mark a range ("`${1}` .. `${N}`"), not an end."""
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
    """Sentences in order; a fenced code block is attached to the sentence just before it.

    A one-line block inside a sentence ("For example" / `zmv '(*).lis' '$1.txt'` / "renames foo.lis to
    foo.txt.") is read as one sentence with the code inline: the words after it open in lower case, so
    they finish the sentence that introduced the code and say nothing alone.
    """
    out: list[Unit] = []
    position = 0
    for match in _FENCE.finditer(text):
        out += _continuing(out, text[position : match.start()])
        code = match.group(1).rstrip("\n")
        if out and out[-1].code is None and code.strip():
            out[-1] = Unit(out[-1].text, code, out[-1].index)
        elif code.strip():
            out.append(Unit("", code, len(out)))
        position = match.end()
    out += _continuing(out, text[position:])
    return out


def _continuing(before: list[Unit], prose: str) -> list[Unit]:
    """``prose``'s sentences; the first joins the unit before it when that unit ends in a one-line code
    block the sentence goes on from (it opens in lower case): ``before``'s last unit is replaced."""
    found = _sentences(prose, len(before))
    last = before[-1] if before else None
    if not (found and last and last.code and last.text and found[0].text[:1].islower()):
        return found
    code = last.code.strip()
    if "\n" in code or "`" in code or len(code) > INLINE_CODE_CHARS:
        return found
    before[-1] = Unit(f"{last.text} `{code}` {found[0].text}", None, last.index)
    return [Unit(u.text, u.code, u.index - 1) for u in found[1:]]


_LIST_MARK = re.compile(r"^(?:[-*\u2022]|\(?\d{1,2}\))\s+")
"""A list item's mark left at the start of a sentence ("- To reduce memory usage, ..."), or the number
of an enumeration run into a paragraph ("... guaranteed: 1) Assignments ... 2) Putting ...")."""


INLINE_CODE_CHARS = 100
"""A code block this short, on one line, reads inline within its sentence."""

_ITEM_START = re.compile(r"\n[ \t]*(?=(?:[-*\u2022]|\d{1,2}[.)])[ \t]+\S)")
"""Where a list item begins: a new line opening with a bullet or a number ("- ", "* ", "2. ")."""
_ITEM_MARK = re.compile(r"^[ \t]*(?:[-*\u2022]|\d{1,2}[.)])[ \t]+")
_FRAGMENT = re.compile(r"^[\"'(*_\[]*[a-z]|(?:[;,]|\band|\bor)$")
"""A list item that only completes the sentence before it: it opens in lower case ("- on a bytecode
boundary;") or runs on (";", ",", "and")."""
_FULL_STOP = re.compile(r"[.!?][)\"'\u201d]*$")
SHORT_LIST_CHARS = 400
"""A list of entries that are not sentences ("Using a pair of parentheses: `()`") reads as one claim
with its introduction up to this length; a longer one is a list of separate notes."""
_NEEDS_ITEMS = re.compile(r"\b(?:following|as follows|below|these|those)\b[^.!?]*:$", re.I)


def _runs(pieces: list[str]) -> list[tuple[list[str], str]]:
    """List items grouped into runs, each with the prose that follows its last item."""
    runs: list[tuple[list[str], str]] = []
    items: list[str] = []
    for piece in pieces:
        first, _, tail = _ITEM_MARK.sub("", piece).partition("\n\n")
        items.append(" ".join(first.split()))
        if tail.strip():
            runs.append((items, tail.strip()))
            items = []
    if items:
        runs.append((items, ""))
    return runs


def blocks(prose: str) -> list[str]:
    """Prose cut into its paragraphs' runs of sentences and its list items that are statements.

    A list of changes ("- The controller now logs every firing. - The lid switch now stops the
    elements...") is several statements about different things, so each item is read on its own; a
    list of fragments ("- on the top shelf;") only completes the sentence before it and stays with
    it. An introduction that ends with a colon before items read on their own ("Two firings differ
    in what they harden (the clay or the glaze):") is a statement of its own, ended with a full
    stop, unless it only announces them ("the following programs:").
    """
    pieces = _ITEM_START.split(prose)
    out: list[str] = [pieces[0].strip()] if pieces[0].strip() else []
    for items, tail in _runs(pieces[1:]):
        glued = " ".join([out[-1], *items]) if out else ""
        entries = not all(_FULL_STOP.search(item) for item in items)
        if out and (any(_FRAGMENT.search(item) for item in items) or (entries and len(glued) <= SHORT_LIST_CHARS)):
            out[-1] = glued  # fragments, or a short list of entries, complete the sentence before them
        else:
            if out and out[-1].endswith(":") and not _NEEDS_ITEMS.search(out[-1]):
                out[-1] = out[-1][:-1] + "."
            out += items
        if tail:
            out.append(tail)
    return [block for block in out if block]


def _sentences(prose: str, start: int) -> list[Unit]:
    found = []
    for block in blocks(prose):
        flat = " ".join(block.split())
        found += [_LIST_MARK.sub("", s.strip()) for s in _SENTENCE_END.split(flat)]
    return [Unit(s, None, start + i) for i, s in enumerate(s for s in found if s)]


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


OPENING_TERMS = 3
"""How many content terms open a sentence: its subject is among them ("A bisque firing hardens")."""
_LABEL = re.compile(r"^(?:" + "|".join((*ADMONITIONS, "note", "tip", "see also")) + r")\s*:\s*", re.I)


@lru_cache(maxsize=8192)
def opening(text: str) -> tuple[str, ...]:
    """The first content terms of a sentence, in order, after an admonition label ("Note: ...")."""
    return tuple([t for t in tokenize(_LABEL.sub("", text.translate(_QUOTES))) if t not in GENERIC][:OPENING_TERMS])


def different_subjects(a: str, b: str) -> bool:
    """Whether two sentences say things about different subjects: each opens with a term the
    other never uses ("A bisque firing hardens the clay at cone 04 ..." / "A glaze firing
    hardens the clay at cone 6 ..."). However many words they share, one is no repeat of the
    other: it is the contrast the reader asked about. A reworded sentence ("Never open a hot kiln"
    / "Kilns ... should never be opened hot", "The cone pack bends at cone 6" / "A row of cones
    ... known as the cone pack bends") names the other's subject and may still repeat it."""
    oa, ob = opening(a), opening(b)
    if not oa or not ob or oa[0] == ob[0]:
        return False
    return oa[0] not in tokenize(b.translate(_QUOTES)) and ob[0] not in tokenize(a.translate(_QUOTES))


CONTRAST_SHARE = 0.4
"""Share of their content terms two sentences about different subjects hold in common to be a pair."""


def contrasts(a: str, b: str) -> bool:
    """Whether two sentences are a contrast pair: the same statement about two subjects ("A bisque
    firing hardens ... at cone 04" / "A glaze firing hardens ... at cone 6"). Each is half of one
    answer, so a reader wants them together."""
    ta, tb = _terms(a), _terms(b)
    return bool(ta and tb) and different_subjects(a, b) and len(ta & tb) / len(ta | tb) >= CONTRAST_SHARE


@lru_cache(maxsize=4096)
def _sentence_texts(text: str) -> tuple[str, ...]:
    return tuple(u.text for u in units(text) if u.text)


def about_other_subjects(a: str, b: str) -> bool:
    """Whether two claims are about different subjects, or one holds the other half of a contrast
    the other states: "Two firings differ in heat. A bisque firing hardens ..." holds
    nearly every word of "A glaze firing hardens ...", and does not say it."""
    if different_subjects(a, b):
        return True
    sa, sb = _sentence_texts(a), _sentence_texts(b)
    return (len(sa) > 1 or len(sb) > 1) and any(contrasts(x, y) for x in sa for y in sb)


def same_claim(a: str, b: str) -> bool:
    """Near-duplicates: identical after normalising, or content terms that nearly coincide about
    the same subject."""
    if normalise(a) == normalise(b):
        return True
    ta, tb = _terms(a), _terms(b)
    if not ta or not tb:
        return False
    overlap = len(ta & tb)
    small = min(len(ta), len(tb))
    near = overlap / len(ta | tb) >= DUPLICATE_THRESHOLD or (small >= 4 and overlap / small >= 0.9)
    return near and not about_other_subjects(a, b)  # one says all the other does, about the same subject


def adds_nothing(new: str, old: str) -> bool:
    """Whether ``new`` says nothing that ``old`` does not: a near-copy, or its terms nearly all in ``old``.

    Unlike :func:`same_claim` this is one-way: a longer claim that holds a shorter one and more
    ("A row of cones set in clay ... It is known as the cone pack" against "the cone pack
    bends at cone 6") is not dropped for it.
    """
    if normalise(new) == normalise(old):
        return True
    tn, to = _terms(new), _terms(old)
    if not tn or not to:
        return False
    overlap = len(tn & to)
    near = overlap / len(tn | to) >= DUPLICATE_THRESHOLD or (len(tn) >= 4 and overlap / len(tn) >= 0.9)
    return near and not about_other_subjects(new, old)


@lru_cache(maxsize=16384)
def _terms(text: str) -> frozenset[str]:
    """Content terms, cached: dedupe compares each candidate with every claim kept so far."""
    return frozenset(terms(text))
