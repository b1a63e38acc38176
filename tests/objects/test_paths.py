"""Reference syntax and path walking: every way a path can be wrong says so."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deepr_mcp.objects.paths import MAX_STEPS, Ref, ReferenceProblem, parse_ref, walk

VALUE = {"items": [{"title": "a"}, {"title": "b", "tags": ["x", "y"]}], "a key": {"n": 1}, "text": "hello"}


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("@obj_ab12", VALUE),
        ("@obj_ab12.items[1].title", "b"),
        ("@obj_ab12.items[-1].tags[0]", "x"),
        ('@obj_ab12["a key"].n', 1),
        ("@obj_ab12['a key']['n']", 1),
        ("@obj_ab12.text", "hello"),
    ],
)
def test_paths_reach_values(ref: str, expected: object) -> None:
    assert walk(VALUE, parse_ref(ref)) == expected


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("obj_ab12", "is not a reference"),
        ("@obj_ab12..items", "bad path"),
        ("@obj_ab12.items[", "bad path"),
        ("@obj_ab12.items[one]", "bad path"),
        ("@obj_ab12 .items", "bad path"),
        ("@obj_ab12" + ".a" * (MAX_STEPS + 1), f"more than {MAX_STEPS} steps"),
        ("@obj_" + "a" * 2000, "at most 1000"),
    ],
)
def test_bad_syntax_is_explained(ref: str, message: str) -> None:
    with pytest.raises(ReferenceProblem, match=message):
        walk(VALUE, parse_ref(ref))


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("@obj_ab12.nope", "has no key 'nope'; its keys: items, a key, text"),
        ("@obj_ab12.items[7]", r"@obj_ab12.items\[7\] is out of range: @obj_ab12.items has 2 items"),
        ("@obj_ab12.items.title", "is an array, so .title does not apply"),
        ("@obj_ab12.text[0]", r"@obj_ab12.text is a string, so \[0\] does not apply"),
        ("@obj_ab12.items[0].title.deeper", "is a string, so .deeper does not apply"),
    ],
)
def test_paths_that_do_not_fit_say_where(ref: str, message: str) -> None:
    with pytest.raises(ReferenceProblem, match=message):
        walk(VALUE, parse_ref(ref))


def test_deep_value_walks_without_recursion() -> None:
    deep: object = "bottom"
    for _ in range(5000):
        deep = [deep]
    ref = Ref("obj_x", (0,) * MAX_STEPS, "")
    inner = walk(deep, ref)
    for _ in range(5000 - MAX_STEPS - 1):
        inner = inner[0]
    assert inner == ["bottom"]  # MAX_STEPS levels down, the rest of the nesting is still there


@given(st.text(max_size=60))
def test_any_text_parses_or_is_refused_cleanly(text: str) -> None:
    try:
        ref = parse_ref("@obj_ab12" + text)
    except ReferenceProblem as problem:
        assert str(problem)  # refused with a message saying what was wrong
    else:
        assert ref.object_id.startswith("obj_ab12") and len(ref.steps) <= MAX_STEPS


@given(st.lists(st.one_of(st.integers(-5, 5), st.text(min_size=1, max_size=8)), max_size=6))
def test_step_text_round_trips(steps: list) -> None:
    ref = Ref("obj_ab12", tuple(steps), "")
    assert parse_ref(ref.with_steps()).steps == tuple(steps)
