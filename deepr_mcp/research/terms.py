"""The content terms of research text: tokens minus the generic words of question templates.

"What key figures and dates describe the 1858 cable?" should be judged on "1858" and
"cable", not on "figures" or "describe", or every templated sub-question looks unanswered.
"""

from __future__ import annotations

from deepr_mcp.text.tokenizer import tokenize

_GENERIC = set(
    tokenize(
        "background history key figures dates numbers describe described problems risks limitations reported "
        "current state outcome overview today nowadays currently explain"
    )
)


def terms(text: str) -> set[str]:
    return {t for t in tokenize(text) if t not in _GENERIC}


def coverage(wanted: set[str], text: str) -> float:
    """Share of ``wanted`` terms that ``text`` contains (0 when nothing is wanted)."""
    if not wanted:
        return 0.0
    return len(wanted & terms(text)) / len(wanted)
