"""The names a part asks about that the documents never write: a gap words alone can prove.

Whether cited passages answer a part is a judgement (``coverage``, ``meaning``), and a question in a
user's own words can defeat it both ways. A name is different: "Is FastAPI faster than the
standard library's server?" asked of documents that never write "FastAPI" cannot be answered by
them, however near their passages about servers stand. So a part with a name (``reading.names``)
that no passage of the corpus holds, nor any passage gathered for it from elsewhere, is unanswered
and the name goes under Gaps; what the documents say nearby is still shown, as near, not as the
answer ("my Flask app" in a question they otherwise answer hedges that answer, it does not hide it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from deepr_mcp.research.corpus.fts import match_expression
from deepr_mcp.research.reading.names import names

__all__ = ["unmentioned"]


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def unmentioned(corpus: Any, text: str, gathered: Sequence[str] = ()) -> list[str]:
    """The names of ``text`` with a word no passage of ``corpus`` holds and no ``gathered`` text uses (stop
    words say nothing either way). Empty for a corpus that cannot count its words or holds no passage: it
    would call every name unmentioned."""
    count = getattr(corpus, "document_frequency", None)
    total = getattr(corpus, "passage_count", None)
    if count is None or total is None or total() == 0:
        return []
    seen = set().union(*(_words(t) for t in gathered)) if gathered else set()
    out = []
    for name in names(text):
        telling = [w for w in _words(name) if match_expression(w) is not None]
        if any(w not in seen and count(w) == 0 for w in telling):
            out.append(name)
    return out
