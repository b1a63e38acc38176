"""Gateway.invoke and tool_call unwrapping without a server: validation, errors, the handler's result."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from deepr_mcp.errors import NotFound
from deepr_mcp.gateway import ToolRegistry
from deepr_mcp.gateway.gateway import Gateway
from deepr_mcp.gateway.outcome import ToolOutcome
from deepr_mcp.gateway.spec import define_tool


class EchoInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    word: str = Field(min_length=1, description="What to echo")


seen: list[Any] = []


@define_tool("echo_word", "Echo a word back.", EchoInput, category="test", scope="read")
async def echo_word(ctx: Any, args: EchoInput) -> dict[str, Any]:
    seen.append(ctx)
    if args.word == "missing":
        raise NotFound("no such word; try another")
    if args.word == "boom":
        raise RuntimeError("a bug")
    return {"echo": args.word}


def gateway(mode: str = "proxy") -> Gateway:
    return Gateway(ToolRegistry([echo_word]), mode)  # type: ignore[arg-type]


async def test_invoke_validates_and_passes_the_context_and_model_to_the_handler() -> None:
    outcome = await gateway().invoke("ctx", "echo_word", {"word": "hi"})
    assert (outcome.is_error, outcome.structured) == (False, {"echo": "hi"})
    assert seen[-1] == "ctx"


async def test_invoke_names_unknown_tools_and_arguments() -> None:
    unknown = await gateway().invoke(None, "echo_wrd", {})
    assert unknown.is_error and "echo_word" in unknown.text
    extra = await gateway().invoke(None, "echo_word", {"word": "x", "loud": True})
    assert extra.is_error and "unknown argument(s) loud" in extra.text and "allowed: word" in extra.text
    empty = await gateway().invoke(None, "echo_word", {"word": ""})
    assert empty.is_error and "word" in empty.text


async def test_invoke_maps_domain_errors_and_hides_bugs() -> None:
    missing = await gateway().invoke(None, "echo_word", {"word": "missing"})
    assert missing.is_error and "no such word" in missing.text
    bug = await gateway().invoke(None, "echo_word", {"word": "boom"})
    assert bug.is_error and "internal error in echo_word" in bug.text and "a bug" not in bug.text


def test_unwrap_call_returns_the_target_or_an_error() -> None:
    assert gateway().unwrap_call({"name": "echo_word", "arguments": {"word": "x"}}) == ("echo_word", {"word": "x"})
    nested = gateway().unwrap_call({"name": "tool_call", "arguments": {}})
    assert isinstance(nested, ToolOutcome) and nested.is_error and "call tool_call directly" in nested.text
    bad = gateway().unwrap_call({"arguments": {}})
    assert isinstance(bad, ToolOutcome) and bad.is_error


def test_listed_per_mode() -> None:
    assert [s.name for s in gateway("proxy").listed()] == ["tool_search", "tool_call"]
    assert [s.name for s in gateway("search").listed(["echo_word"])] == ["tool_search", "echo_word"]
    assert [s.name for s in gateway("full").listed()] == ["tool_search", "tool_call", "echo_word"]


async def test_the_gateway_asks_authorize_before_any_handler_runs() -> None:
    from deepr_mcp.errors import Forbidden

    asked: list[tuple[str, str, dict[str, Any]]] = []

    async def authorize(ctx: Any, spec: Any, arguments: dict[str, Any]) -> None:
        asked.append((spec.name, spec.scope, arguments))
        if ctx == "nobody":
            raise Forbidden(f"tool {spec.name} needs scope {spec.scope!r}")

    gw = Gateway(ToolRegistry([echo_word]), "proxy", authorize=authorize)
    seen.clear()
    denied = await gw.invoke("nobody", "echo_word", {"word": "hi"})
    assert denied.is_error and "needs scope 'read'" in denied.text and seen == []
    invalid = await gw.invoke("nobody", "echo_word", {"word": ""})
    assert invalid.is_error and "word" in invalid.text and len(asked) == 1  # bad input is refused first
    assert not (await gw.invoke("someone", "echo_word", {"word": "hi"})).is_error
    assert asked[-1] == ("echo_word", "read", {"word": "hi"})


def test_every_catalogue_tool_declares_a_known_scope() -> None:
    from deepr_mcp.auth.principals import SCOPES
    from deepr_mcp.tools import all_tools

    scopes = {spec.name: spec.scope for spec in all_tools()}
    assert set(scopes.values()) <= set(SCOPES)
    assert {n for n, s in scopes.items() if s == "admin"} == {"campaign_delete", "corpus_remove", "expert_delete"}
    assert {n for n, s in scopes.items() if s == "approve"} == {"budget_decide"}
    assert all(spec.ownership in ("see", "own") for spec in all_tools())


async def test_a_tool_whose_schema_has_a_dangling_ref_answers_a_tool_error() -> None:
    """A federated tool's schema is checked with jsonschema; an unresolvable $ref once escaped as code 0."""
    from deepr_mcp.gateway.spec import ToolSpec

    async def handler(ctx: Any, arguments: Any) -> dict[str, Any]:
        raise AssertionError("never reached: its arguments cannot be checked")

    broken = ToolSpec(
        name="up_broken",
        description="An upstream tool with a broken schema.",
        input_schema={"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
        handler=handler,
        upstream="up",
    )
    outcome = await Gateway(ToolRegistry([broken]), "proxy").invoke("ctx", "up_broken", {"a": 1})  # type: ignore[arg-type]
    assert outcome.is_error and "inputSchema cannot be resolved" in outcome.text and "missing" in outcome.text
