"""A small look at a big value: its shape kept, lists cut to their first items, strings to their start."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["dumps", "shrink"]

# (items kept per list, characters kept per string, keys kept per object), tried in turn until it fits.
_STEPS = ((5, 300, 40), (3, 160, 30), (2, 80, 20), (1, 40, 12), (1, 20, 6))
_MAX_DEPTH = 6


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def shrink(value: Any, budget_chars: int) -> tuple[Any, dict[str, int]]:
    """The largest of a few cut-down versions of ``value`` whose JSON fits ``budget_chars``.

    Returns the preview and what was kept (``items``, ``chars``, ``keys`` per level) so the
    answer can say exactly how it was cut.
    """
    for items, chars, keys in _STEPS:
        small = _cut(value, items, chars, keys, 0)
        if len(dumps(small)) <= budget_chars:
            return small, {"items": items, "chars": chars, "keys": keys}
    text = dumps(value) if not isinstance(value, str) else value
    return text[: max(budget_chars - 2, 0)], {"chars": budget_chars}


def _cut(value: Any, items: int, chars: int, keys: int, depth: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= chars else value[:chars] + "…"
    if depth >= _MAX_DEPTH and isinstance(value, dict | list):
        return "…" if value else value
    if isinstance(value, list):
        return [_cut(v, items, chars, keys, depth + 1) for v in value[:items]]
    if isinstance(value, dict):
        return {k: _cut(v, items, chars, keys, depth + 1) for k, v in list(value.items())[:keys]}
    return value
