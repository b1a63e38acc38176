"""The JSON-RPC shape check: what it refuses, what it lets through, and that it is never looser than the SDK.

stdio relies on the last property: every line the SDK refuses must have been refused here first,
so each refusal is answered with the problem queued for it and no other.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepr_mcp.transports.jsonrpc_guard import INVALID_REQUEST, PARSE_ERROR, problem_of, problem_of_text

VALID: list[Any] = [
    {"jsonrpc": "2.0", "id": 1, "method": "ping"},
    {"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "x"}},
    {"jsonrpc": "2.0", "id": -7, "method": "ping", "params": {}},
    {"jsonrpc": "2.0", "id": 2**53, "method": "ping"},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 3, "result": {}},
    {"jsonrpc": "2.0", "id": "e", "error": {"code": -32601, "message": "nope"}},
    {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "client could not parse"}},
]


@pytest.mark.parametrize("message", VALID)
def test_well_formed_messages_pass(message: Any) -> None:
    assert problem_of(message) is None
    types.jsonrpc_message_adapter.validate_python(message, by_name=False)  # the SDK agrees


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ({"jsonrpc": "2.0", "id": 1.0, "method": "ping"}, "a number with a fraction (1.0)"),
        ({"jsonrpc": "2.0", "id": False, "method": "ping"}, "a boolean (false)"),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, "got null"),
        ({"jsonrpc": "2.0", "id": None, "result": {}}, "got null"),
        ({"jsonrpc": "2.0", "method": "ping", "params": None}, "params must be an object"),
        ({"jsonrpc": "2.0", "id": 1, "result": []}, "result must be an object"),
        ({"jsonrpc": "2.0", "result": {}}, "needs the id"),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "m"}}, "integer code"),
        (None, "null, not a JSON object"),
        ([], "batches"),
    ],
)
def test_malformed_messages_are_named(message: Any, words: str) -> None:
    problem = problem_of(message)
    assert problem is not None and problem.code == INVALID_REQUEST
    assert words in problem.message and "string or integer" in problem.message


def test_text_that_is_not_json_is_a_parse_error() -> None:
    for text in ["", "{", b"\xff\xfe", "[" * 100_000, "1" * 5000 + "e"]:
        problem = problem_of_text(text)
        assert problem is not None and problem.code == PARSE_ERROR


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
envelopes = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2.0]) | json_values,
        "id": json_values,
        "method": st.sampled_from(["ping", "tools/list", ""]) | json_values,
        "params": json_values,
        "result": json_values,
        "error": json_values | st.fixed_dictionaries({"code": json_values, "message": json_values}),
    },
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(envelopes, json_values))
def test_the_guard_is_never_looser_than_the_sdk(message: Any) -> None:
    problem = problem_of(message)
    assert problem is None or problem.code == INVALID_REQUEST
    if problem is None:  # whatever passes here, the SDK parses too
        types.jsonrpc_message_adapter.validate_json(json.dumps(message), by_name=False)
