"""What kind of text a line is, read from its shape: a sentence, a run of fields, a list of names.

An answer opens with a sentence that says something. Reference pages also hold lines that are not
sentences: a field list ("Default: true Type: Boolean"), a heading or list item that lost its
layout ("Run package scripts"), a row of names ("`*.orig` `.*.swp` `.DS_Store`"). Each is told by
its form alone (labels ending in a colon, a closing full stop, code spans side by side), the same in
any documentation, so no word of one corpus decides it.
"""

from __future__ import annotations

import re

_LABEL = re.compile(r"([A-Z][a-z]+(?:[ -][A-Za-z]+)?):\s+")
"""A field's label: one or two words, the first capitalised, then a colon ("Default:", "Type:")."""
_SENTENCE_START = re.compile(r"\s(?=[A-Z][\w'’]*\s+[`a-z])")
"""Where a sentence starts inside a field's value: a capitalised word followed by a lower-case one."""
_STOP = re.compile(r"[.!?]\s+(?=[A-Z])")
_ENDS = re.compile(r"[.!?:;][\"'’”)\]]*$")
"""A sentence ends with a stop (a colon introduces code or a list; closing quotes or brackets may follow)."""
_CODE = re.compile(r"`[^`]*`")
_NAMES = re.compile(r"^\W*(?:`[^`]*`[\s,]*){3,}")
"""Three code spans side by side, with nothing but spaces or commas between them: a row of names (a synopsis,
`cmd [ -x ] | file`, has syntax between its names, and is the command a how-to wants)."""
_AUXILIARY = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|does|do|did|can|cannot|could|will|would|shall|should|may|might"
    r"|must|isn't|aren't|doesn't|don't|can't|won't)\b",
    re.I,
)
"""English auxiliaries and forms of "be" (a closed class of the language): a list item with no closing stop
is still a statement when it has one ("mktemp is deprecated due to race conditions"); a heading ("Run
package scripts", "The Package Registry") has none."""
FIELDS = 2
"""Labels in a row that make a field list: one "Note: ..." opens a sentence; two are a record."""


def field_run(text: str) -> int:
    """Where a leading run of "Label: value" fields ends (0 when the line opens with none): "Default:
    true Type: Boolean If set ..." -> the index of "If". A value runs to the next label or to the first
    word that starts a sentence after it. ``FIELDS`` labels make a record; so does one whose value is a
    single token that is no word before a sentence ("Source code: kiln/ctl.py The `ctl` module ..."):
    "Note: The kiln cools slowly" is a sentence with a label."""
    pos, labels, token = 0, 0, False
    while (label := _LABEL.match(text, pos)) is not None:
        following = _LABEL.search(text, label.end() + 1)
        value_end = following.start() if following else len(text)
        opens = _SENTENCE_START.search(text, label.end() + 1, value_end)
        end = opens.start() + 1 if opens else value_end
        if _STOP.search(text, label.end(), end):
            break  # a value never holds a sentence's end: "Source code: ... package. Warning: ..." is prose
        labels, pos = labels + 1, end
        if opens is not None:  # the value ends where a sentence begins: the run of fields is over
            value = text[label.end() : end].split()
            # one token that is no word ("kiln/ctl.py", "2.1"): "Note: The kiln ..." opens a sentence with "The"
            token = labels == 1 and len(value) == 1 and not value[0].isalpha()
            break
    return pos if labels >= FIELDS or token else 0


def without_fields(text: str) -> str:
    """The line after its leading field run ("" when it is all fields)."""
    return text[field_run(text) :].strip()


def only_fields(text: str) -> bool:
    """Whether a line is a field list and nothing else ("Default: false Type: Boolean"): alone it says nothing,
    so it is no finding. A line closed by a stop holds a sentence its fields run into, and is kept."""
    body = text.strip()
    return bool(field_run(body)) and not without_fields(body) and not _ENDS.search(body)


def is_sentence(text: str) -> bool:
    """Whether a line is written as a statement: neither a field list nor a row of names, and either
    closed by a stop (its code spans read as words) or a list item with an auxiliary verb."""
    body = text.strip()
    if not body or field_run(body) or _NAMES.match(body):
        return False
    words = _CODE.sub("x", body)
    return bool(_ENDS.search(words) or _AUXILIARY.search(words))


def fields_last(text: str) -> str:
    """A line with its leading field list moved behind its sentence, as a reader wants it: "If set to
    false, lock files are ignored. (Default: true; Type: Boolean)"; the line as it was otherwise."""
    run = field_run(text)
    rest = text[run:].strip()
    if not run or not rest:
        return text
    head = text[:run].strip()
    starts = [m.start() for m in _LABEL.finditer(head)]
    fields = "; ".join(head[a:b].strip() for a, b in zip(starts, [*starts[1:], len(head)], strict=True))
    return f"{rest} ({fields})"
