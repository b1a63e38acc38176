"""Whether an upstream tool's ``inputSchema`` can be used: every ``$ref`` in it must resolve.

A schema whose ``$ref`` points nowhere (``#/$defs/missing``, or a remote URI, which deepr never
fetches) makes every validation of a call raise deep inside ``jsonschema``; such a tool is left
out at listing with its reason, instead of failing on each call.
"""

from __future__ import annotations

from typing import Any

import referencing.jsonschema
from referencing import Registry

__all__ = ["schema_problem"]

MAX_NODES = 100_000
LITERALS = frozenset({"const", "enum", "default", "examples"})
"""Keywords whose values are data, not schemas: a ``$ref`` key in them is no reference."""
MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
"""Keywords whose values map names to schemas: every name is walked, ``default`` included."""


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` cannot validate calls (a ``$ref`` that does not resolve), or ``None``."""
    if not isinstance(schema, dict):
        return f"inputSchema is {type(schema).__name__}, not an object"
    try:
        spec = referencing.jsonschema.specification_with(
            str(schema.get("$schema", "")), default=referencing.jsonschema.DRAFT202012
        )
        root = spec.create_resource(schema)
        resolver = Registry().with_resource(root.id() or "", root).crawl().resolver(base_uri=root.id() or "")
    except Exception as exc:  # boundary: whatever the upstream sent, a reason and no traceback
        return f"inputSchema cannot be read: {type(exc).__name__}: {exc}"
    stack: list[tuple[Any, Any, bool]] = [(schema, resolver, False)]
    seen = 0
    while stack:
        node, here, is_map = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            return f"inputSchema has more than {MAX_NODES:,} nodes"
        if isinstance(node, list):
            stack.extend((item, here, False) for item in node)
            continue
        if not isinstance(node, dict):
            continue
        if is_map:
            stack.extend((value, here, False) for value in node.values())
            continue
        if node is not schema and isinstance(node.get("$id"), str):
            try:
                here = here.in_subresource(spec.create_resource(node))
            except Exception as exc:  # boundary, as above
                return f"inputSchema's $id {node['$id']!r} cannot be read: {exc}"
        ref = node.get("$ref")
        if isinstance(ref, str):
            try:
                here.lookup(ref)
            except Exception:  # referencing's Unresolvable and PointerToNowhere, or a malformed pointer
                return f"inputSchema's $ref {ref[:200]!r} points nowhere"
        stack.extend((value, here, key in MAPS) for key, value in node.items() if key not in LITERALS)
    return None
