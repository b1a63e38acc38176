"""The outputSchema a tool keeps through the gateway: its own results or a big result's preview, both valid."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import jsonschema
import pytest

from deepr_mcp.auth.principals import Principal
from deepr_mcp.gateway.outcome import ToolOutcome
from deepr_mcp.gateway.spec import ToolSpec
from deepr_mcp.objects import MemoryObjectStore, Objects
from deepr_mcp.objects.preview import claimed_output_schema

ECHO = {"type": "object", "properties": {"echo": {"type": "string"}}, "required": ["echo"]}
RECORDS = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "definitions": {"rec": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}},
    "type": "object",
    "properties": {"records": {"type": "array", "items": {"$ref": "#/definitions/rec"}}},
    "required": ["records"],
}
TREE = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}, "required": ["kids"]}


def objects() -> Objects:
    store = MemoryObjectStore(ttl_s=600, max_bytes_per_owner=10**9)
    return Objects(store, threshold_bytes=1000, preview_chars=400, max_object_bytes=10**6, ttl_s=600.0)


def valid(schema: dict[str, Any], value: Any) -> bool:
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    return validator(schema).is_valid(value)


async def previewed(spec: ToolSpec, value: Any) -> Any:
    ctx = SimpleNamespace(principal=Principal(name="alice", scopes=frozenset({"read"})))
    outcome = await objects().finish(ctx, spec, ToolOutcome(text=str(value) * 2, structured=value))
    return outcome.structured


@pytest.mark.parametrize(
    ("own", "good", "bad", "big"),
    [
        (ECHO, {"echo": "hi"}, {"echo": 3}, {"echo": "x" * 5000}),
        (RECORDS, {"records": [{"id": 1}]}, {"records": [{"id": "one"}]}, {"records": [{"id": i} for i in range(900)]}),
        (TREE, {"kids": [{"kids": []}]}, {"kids": [{"nope": 1}]}, {"kids": [{"kids": []} for _ in range(500)]}),
    ],
)
async def test_own_results_and_previews_validate_and_wrong_results_still_fail(
    own: dict[str, Any], good: Any, bad: Any, big: Any
) -> None:
    claimed = claimed_output_schema(own)
    assert claimed is not None and claimed["type"] == "object"
    assert valid(claimed, good) and not valid(claimed, bad)  # the upstream's contract is still checked
    spec = ToolSpec(name="t", description="d", input_schema={"type": "object"}, output_schema=own)
    preview = await previewed(spec, big)
    assert preview["truncated"] is True and preview["object"]["ref"].startswith("@obj_")
    assert not valid(own, preview) and valid(claimed, preview)  # the defect, and the fix
    assert {k: claimed[k] for k in ("$schema", "definitions") if k in own} == {
        k: own[k] for k in ("$schema", "definitions") if k in own
    }  # what references resolve against stays at the root


def test_a_schema_pointing_into_its_own_properties_is_not_claimed() -> None:
    pointer = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"$ref": "#/properties/a"}}}
    assert claimed_output_schema(pointer) is None
    remote = {"type": "object", "properties": {"a": {"$ref": "https://example.invalid/a.json"}}}
    assert claimed_output_schema(remote) is not None  # not a pointer into itself: nesting changes nothing


def test_tools_that_handle_objects_or_declare_nothing_keep_what_they_have() -> None:
    service = objects()
    plain = ToolSpec(name="p", description="d", input_schema={"type": "object"})
    own = ToolSpec(name="o", description="d", input_schema={"type": "object"}, output_schema=ECHO, handles_objects=True)
    assert service.output_schema(plain) is None and service.output_schema(own) is ECHO
    listed = ToolSpec(name="e", description="d", input_schema={"type": "object"}, output_schema=ECHO)
    assert service.output_schema(listed) is service.output_schema(listed)  # computed once per schema
