"""Objects use cases: when a result is stored, what its preview says, and how references resolve."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from pydantic import BaseModel

from deepr_mcp.auth.principals import Principal
from deepr_mcp.errors import InvalidInput, NotFound
from deepr_mcp.gateway.outcome import ToolOutcome, to_outcome
from deepr_mcp.gateway.spec import define_tool
from deepr_mcp.objects import MemoryObjectStore, Objects


def ctx(name: str = "alice") -> SimpleNamespace:
    return SimpleNamespace(principal=Principal(name=name, scopes=frozenset({"read"})))


def objects(**limits: int) -> Objects:
    store = MemoryObjectStore(ttl_s=600, max_bytes_per_owner=limits.pop("per_owner", 10**9))
    settings = {"threshold_bytes": 1000, "preview_chars": 400, "max_object_bytes": 10**7, "ttl_s": 600.0}
    return Objects(store, **{**settings, **limits})


class Query(BaseModel):
    query: str
    n: int = 1


@define_tool("q_tool", "A tool taking a string.", Query, scope="read")
async def q_tool(ctx: object, args: Query) -> dict:
    return {"query": args.query}


BIG = {"items": [{"title": f"item {i}", "body": "x" * 200} for i in range(50)], "report": "long " * 400}


async def test_small_results_pass_untouched_big_ones_are_stored_with_a_preview() -> None:
    objs = objects()
    small = to_outcome({"a": 1})
    assert await objs.finish(ctx(), q_tool, small) is small
    error = ToolOutcome.error("x" * 5000)
    assert await objs.finish(ctx(), q_tool, error) is error
    answer = (await objs.finish(ctx(), q_tool, to_outcome(BIG))).structured
    assert answer["truncated"] is True
    meta = answer["object"]
    assert meta["type"] == "object" and meta["size_bytes"] == len(json.dumps(BIG, separators=(",", ":")))
    assert meta["ref"] == "@" + meta["id"] and meta["length"] == 2
    assert len(json.dumps(answer["preview"])) <= 400 and answer["preview"]["items"][0]["title"] == "item 0"
    assert "object_get" in answer["how"] and "object_slice" in answer["how"]


async def test_get_and_slice_by_path_and_only_for_the_owner() -> None:
    objs = objects()
    ref = (await objs.finish(ctx(), q_tool, to_outcome(BIG))).structured["object"]["ref"]
    got = (await objs.get(ctx(), f"{ref}.items[3].title")).structured
    assert got["value"] == "item 3" and got["type"] == "string"
    still_big = (await objs.get(ctx(), f"{ref}.items")).structured
    assert still_big["truncated"] and still_big["object"]["ref"] == f"{ref}.items"
    page = (await objs.slice(ctx(), f"{ref}.items", 10, 12)).structured
    assert [i["title"] for i in page["items"]] == ["item 10", "item 11"] and page["next_start"] == 12
    wide = (await objs.slice(ctx(), f"{ref}.items", 0, None)).structured
    assert wide["truncated"] and len(json.dumps(wide["items"])) <= 1000 and wide["next_start"] == len(wide["items"])
    text = (await objs.slice(ctx(), f"{ref}.report", 0, 10)).structured
    assert text["items"] == "long long " and text["total"] == 2000
    with pytest.raises(InvalidInput, match="object_slice takes an array or a string"):
        await objs.slice(ctx(), f"{ref}.items[0]", 0, 1)
    with pytest.raises(NotFound, match="unknown object"):
        await objs.get(ctx("mallory"), ref)
    with pytest.raises(NotFound, match="unknown object"):
        await objs.get(ctx(), "@obj_" + "0" * 24)
    with pytest.raises(InvalidInput, match="has no key 'nope'"):
        await objs.get(ctx(), f"{ref}.nope")


async def test_references_resolve_before_validation_with_clear_errors() -> None:
    objs = objects()
    ref = (await objs.finish(ctx(), q_tool, to_outcome(BIG))).structured["object"]["ref"]
    resolved = await objs.resolve(ctx(), q_tool, {"query": f"{ref}.items[2].title", "n": 3})
    assert resolved == {"query": "item 2", "n": 3}
    assert await objs.resolve(ctx(), q_tool, {"query": "@@obj_literal"}) == {"query": "@obj_literal"}
    plain = {"query": "no refs here"}
    assert await objs.resolve(ctx(), q_tool, plain) is plain
    cases = {
        f"{ref}.items": "is an array; it takes string",
        f"{ref}.nope": "has no key 'nope'",
        f"{ref}..x": "bad path",
        "@obj_" + "f" * 24: "unknown object",
    }
    for value, message in cases.items():
        outcome = await objs.resolve(ctx(), q_tool, {"query": value})
        assert isinstance(outcome, ToolOutcome) and outcome.is_error, value
        assert message in outcome.text and "argument 'query' of q_tool" in outcome.text, outcome.text
    other = await objs.resolve(ctx("mallory"), q_tool, {"query": f"{ref}.report"})
    assert isinstance(other, ToolOutcome) and "unknown object" in other.text


async def test_nested_references_resolve_and_a_cycle_is_refused() -> None:
    objs = objects()
    store = objs.store
    a = await store.put("alice", {"next": None, "name": "a"}, 10)
    b = await store.put("alice", {"next": f"@{a.id}.name"}, 10)
    assert await objs.resolve(ctx(), q_tool, {"query": f"@{b.id}.next"}) == {"query": "a"}
    a.value["next"] = f"@{b.id}.next"  # a -> b -> a
    a.value["name"] = f"@{a.id}.name"  # and a to itself
    for start in (f"@{a.id}.next", f"@{a.id}.name"):
        outcome = await objs.resolve(ctx(), q_tool, {"query": start})
        assert isinstance(outcome, ToolOutcome) and "reference cycle" in outcome.text, outcome.text


async def test_reference_fan_out_is_bounded() -> None:
    objs = objects()
    leaf = await objs.store.put("alice", "x", 1)
    outcome = await objs.resolve(ctx(), q_tool, {"query": [f"@{leaf.id}"] * 40})
    assert isinstance(outcome, ToolOutcome) and "more than 32 references" in outcome.text


async def test_a_100_mb_result_is_previewed_not_stored() -> None:
    objs = objects(max_object_bytes=32 * 2**20)
    huge = ToolOutcome(text="y" * (100 * 2**20))
    answer = (await objs.finish(ctx(), q_tool, huge)).structured
    assert answer["truncated"] and answer["object"] is None and "over objects.max_object_bytes" in answer["not_stored"]
    assert len(answer["preview"]) <= 400 and len(objs.store) == 0


async def test_a_result_over_the_owner_budget_is_previewed_not_an_internal_error() -> None:
    objs = objects(per_owner=2000)
    answer = (await objs.finish(ctx(), q_tool, to_outcome(BIG))).structured
    assert answer["object"] is None and "per-owner limit" in answer["not_stored"]


async def test_a_slice_never_sends_an_item_bigger_than_the_answer_limit() -> None:
    """object_slice(ref, 0, 1) of a 3 MB item once returned it whole, twice (text and structured): 6 MB."""
    objs = objects(threshold_bytes=1000)
    huge = {"rows": [{"blob": "y" * 3_000_000}, {"small": 1}]}
    ref = (await objs.finish(ctx(), q_tool, to_outcome(huge))).structured["object"]["ref"]
    page = await objs.slice(ctx(), f"{ref}.rows", 0, 1)
    assert len(page.text.encode()) < 2000 and len(json.dumps(page.structured).encode()) < 2000
    assert page.structured["items"] == [] and page.structured["truncated"] is True
    assert page.structured["item_too_big"]["read_with"] == f"object_get(ref='{ref}.rows[0]')"
    assert page.structured["next_start"] == 1
    rest = (await objs.slice(ctx(), f"{ref}.rows", page.structured["next_start"], None)).structured
    assert rest["items"] == [{"small": 1}]
    preview = (await objs.get(ctx(), f"{ref}.rows[0]")).structured
    assert preview["truncated"] and len(json.dumps(preview).encode()) < 5000


async def test_an_upstreams_huge_structured_content_is_previewed_even_beside_a_short_text() -> None:
    """Only the text was measured: a 5 MB structuredContent beside 'ok' was forwarded whole."""
    objs = objects(threshold_bytes=1000)
    upstream = ToolOutcome(text="ok", structured={"blob": "z" * 5_000_000}, content=[{"type": "text", "text": "ok"}])
    answer = await objs.finish(ctx(), q_tool, upstream)
    assert answer.content is None and answer.structured is not None and answer.structured["truncated"] is True
    assert len(json.dumps(answer.structured).encode()) < 5000 and len(answer.text.encode()) < 5000
    ref = answer.structured["object"]["ref"]
    assert (await objs.slice(ctx(), f"{ref}.blob", 0, 10)).structured["items"] == "z" * 10
