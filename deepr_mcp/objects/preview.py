"""A small look at a big value: its shape kept, lists cut to their first items, strings to their start."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["PREVIEW_SCHEMA", "claimed_output_schema", "dumps", "shrink"]

# (items kept per list, characters kept per string, keys kept per object), tried in turn until it fits.
_STEPS = ((5, 300, 40), (3, 160, 30), (2, 80, 20), (1, 40, 12), (1, 20, 6))
_MAX_DEPTH = 6


PREVIEW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The result was too big to send: a preview, and the stored object that holds the rest "
    "(object is null when it was too big to store)",
    "properties": {
        "truncated": {"const": True},
        "object": {
            "type": ["object", "null"],
            "properties": {"id": {"type": "string"}, "ref": {"type": "string"}, "type": {"type": "string"}},
        },
        "type": {"type": "string"},
        "size_bytes": {"type": "integer"},
        "preview": {},
        "cut": {"type": "object"},
        "how": {"type": "string"},
        "not_stored": {"type": "string"},
    },
    "required": ["truncated", "object", "preview"],
}
"""The shape of ``structuredContent`` when a big result is answered with a preview (``Objects.finish``)."""

_ROOT_KEYWORDS = ("$schema", "$id", "$defs", "definitions")
_SAFE_REFS = ("#/$defs/", "#/definitions/")


def claimed_output_schema(own: dict[str, Any]) -> dict[str, Any] | None:
    """The ``outputSchema`` a tool can keep through the gateway: its own results, or a preview.

    Any result over the threshold is answered with a preview (``PREVIEW_SCHEMA``), which does not
    match the tool's own schema, and clients validate ``structuredContent`` against what
    ``tools/list`` claims (the SDK client raises). So the claim is widened to ``anyOf`` the two.
    Root keywords that references resolve against (``$defs``, ``$id``, ``$schema``) stay at the
    root. A schema whose ``$ref`` points elsewhere into itself (``#/properties/...``) would break
    once nested, so it is not claimed at all (``None``): results still pass, unvalidated.
    """
    if any(not (ref == "#" or ref.startswith(_SAFE_REFS)) for ref in _local_refs(own)):
        return None
    root = {k: own[k] for k in _ROOT_KEYWORDS if k in own}
    inner = {k: v for k, v in own.items() if k not in _ROOT_KEYWORDS}
    return {**root, "type": "object", "anyOf": [inner, PREVIEW_SCHEMA]}


def _local_refs(schema: Any) -> list[str]:
    found: list[str] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                found.append(ref)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


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
