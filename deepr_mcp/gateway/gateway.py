"""The two gateway tools and the dispatch behind them.

``tool_search`` ranks the catalogue and reveals hits to the connection; ``tool_call`` runs
any catalogue tool by name. Every tool is also callable by its own name, revealed or not:
clients differ in whether they ever re-read ``tools/list`` (Claude Desktop does not), and
2026-07-28 clients have no connection to reveal to.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

import jsonschema
import referencing.exceptions
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from deepr_mcp.config import GatewayMode
from deepr_mcp.errors import DeeprError, describe_validation_error
from deepr_mcp.gateway.outcome import ToolOutcome, to_outcome
from deepr_mcp.gateway.registry import ToolRegistry
from deepr_mcp.gateway.spec import ToolSpec, clean_schema

__all__ = [
    "GATEWAY_TOOL_NAMES",
    "Checked",
    "Gateway",
    "ToolCallInput",
    "ToolSearchInput",
    "describe_validation_error",
]

logger = logging.getLogger(__name__)

MAX_QUERY_CHARS = 2000


class ToolSearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(description="The task, in words")
    limit: int = Field(3, ge=1, le=20)
    format: Literal["json", "markdown"] = "json"
    # Short on purpose: this schema is in every first tools/list (the demo holds it under 1 KB).
    category: str = Field("", description="Only this category")
    source: str = Field("", description="'deepr' or an upstream's name")

    @field_validator("query")
    @classmethod
    def _query_has_words(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain words describing the task, e.g. 'start a research campaign'")
        if len(value) > MAX_QUERY_CHARS:
            raise ValueError(f"is {len(value)} characters; at most {MAX_QUERY_CHARS} are allowed")
        return value


class ToolCallInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=64)
    arguments: dict[str, Any] = Field(default_factory=dict, description="Per the tool's inputSchema")


SEARCH_SPEC = ToolSpec(
    name="tool_search",
    description="Find research tools by describing the task; returns names and input schemas. Call this first.",
    input_schema=clean_schema(ToolSearchInput.model_json_schema()),
    category="gateway",
    input_model=ToolSearchInput,
)
CALL_SPEC = ToolSpec(
    name="tool_call",
    description="Run a tool found with tool_search: name plus arguments matching its inputSchema.",
    input_schema=clean_schema(ToolCallInput.model_json_schema()),
    category="gateway",
    input_model=ToolCallInput,
)
GATEWAY_TOOL_NAMES = frozenset({SEARCH_SPEC.name, CALL_SPEC.name})


Authorize = Callable[[Any, ToolSpec, dict[str, Any]], Awaitable[None]]
"""``authorize(ctx, spec, arguments)`` raises ``Forbidden`` when the caller may not run the tool."""


class ObjectHooks(Protocol):
    """Big results and ``@obj_`` references (``deepr_mcp.objects.Objects``), seen by every call's dispatch."""

    async def resolve(self, ctx: Any, spec: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any] | ToolOutcome:
        """The arguments with references replaced by their values, or the error to answer."""
        ...

    async def finish(self, ctx: Any, spec: ToolSpec, outcome: ToolOutcome) -> ToolOutcome:
        """The outcome to send: the same, or a preview of it once stored."""
        ...

    def output_schema(self, spec: ToolSpec) -> dict[str, Any] | None:
        """The ``outputSchema`` to list for ``spec``, given that ``finish`` may answer a preview."""
        ...


class UpstreamStatus(Protocol):
    """What the federation knows of upstreams that cannot answer (``deepr_mcp.upstreams.pool.Upstreams``)."""

    def unavailable(self) -> list[dict[str, str]]:
        """``{"upstream", "state"}`` for each upstream that is down or whose circuit is open."""
        ...

    def why_missing(self, name: str) -> str | None:
        """Why a tool named ``name`` is not in the catalogue when an upstream explains it, else ``None``."""
        ...


class Gateway:
    """Owns what each mode lists and how a call reaches its handler."""

    def __init__(
        self,
        registry: ToolRegistry,
        mode: GatewayMode,
        authorize: Authorize | None = None,
        *,
        pinned: Iterable[str] = (),
    ) -> None:
        self.registry = registry
        self.mode = mode
        self.authorize = authorize
        """The one place scopes and ownership are enforced, before any handler runs (set by the root)."""
        self.objects: ObjectHooks | None = None
        """Resolves references before validation and stores big results after the handler (set by the root);
        a dispatch path for upstream tools that does not go through ``invoke`` calls the same two hooks."""
        self.pinned = list(dict.fromkeys(pinned))
        """Tools every first ``tools/list`` shows (``gateway.pinned``); names not registered are skipped."""
        self.prepare: Callable[[], Awaitable[None]] | None = None
        """Brings federated upstreams' tools in before search and calls (set by the root when configured)."""
        self.upstream_status: UpstreamStatus | None = None
        """Which upstreams cannot answer now, and whose a missing tool name looks like (set by the root)."""

    async def ready(self) -> None:
        """Wait, bounded, for the upstreams' first listing so search and calls see their tools."""
        if self.prepare is not None:
            await self.prepare()

    def as_listed(self, spec: ToolSpec) -> ToolSpec:
        """``spec`` as ``tools/list`` shows it: an ``outputSchema`` that also admits a big result's preview."""
        if spec.output_schema is None or self.objects is None:
            return spec
        claimed = self.objects.output_schema(spec)
        return spec if claimed is spec.output_schema else replace(spec, output_schema=claimed)

    def listed(self, revealed: Iterable[str] = ()) -> list[ToolSpec]:
        """The tools ``tools/list`` shows: what the mode promises plus what was revealed."""
        if self.mode == "full":
            return [SEARCH_SPEC, CALL_SPEC, *self.registry]
        base = [SEARCH_SPEC, CALL_SPEC] if self.mode == "proxy" else [SEARCH_SPEC]
        pinned = [spec for name in self.pinned if (spec := self.registry.get(name)) is not None]
        extra = [
            spec for name in sorted(set(revealed) - set(self.pinned)) if (spec := self.registry.get(name)) is not None
        ]
        return base + pinned + extra

    def schema_of(self, name: str) -> dict[str, Any] | None:
        for spec in (SEARCH_SPEC, CALL_SPEC):
            if spec.name == name:
                return spec.input_schema
        spec = self.registry.get(name)
        return spec.input_schema if spec is not None else None

    def search_needs_model(self, arguments: dict[str, Any] | None) -> bool:
        """Whether ``search(arguments)`` would embed its query: then run it off the event loop."""
        query = (arguments or {}).get("query")
        return isinstance(query, str) and len(query) <= MAX_QUERY_CHARS and self.registry.needs_model(query)

    def search(self, arguments: dict[str, Any] | None) -> tuple[ToolOutcome, list[str]]:
        """Run ``tool_search``; returns the answer and the names it found (to reveal)."""
        try:
            args = ToolSearchInput.model_validate(arguments or {})
        except ValidationError as exc:
            return ToolOutcome.error(describe_validation_error("tool_search", exc)), []
        unknown = self._unknown_filter(args)
        if unknown is not None:
            return unknown, []
        hits = self.registry.search(args.query, args.limit, category=args.category or None, source=args.source or None)
        names = [hit.name for hit in hits]
        via = "tool_call" if self.mode == "proxy" else "its name"
        structured = {
            "query": args.query,
            "hits": [
                {
                    "name": h.name,
                    "description": h.spec.description,
                    "inputSchema": h.spec.input_schema,
                    "score": h.score,
                    "category": h.spec.category,
                    "source": h.spec.source,
                    **({"annotations": h.spec.annotations.to_mcp()} if h.spec.annotations else {}),
                }
                for h in hits
            ],
            "call_with": "tool_call with {name, arguments}" if self.mode == "proxy" else "the tool's own name",
        }
        if not hits:
            structured["hint"] = "No tool matched; try other words, or catalogue_list to browse."
        down = self.upstream_status.unavailable() if self.upstream_status is not None else []
        if down:
            structured["unavailable_upstreams"] = down
        if args.format == "markdown":
            text = self._markdown(args.query, hits, via)
            if not hits:
                text += "\n" + structured["hint"]
            for item in down:
                text += f"\nUpstream {item['upstream']} is unavailable ({item['state']}): its tools may be missing."
        else:
            text = json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
        return ToolOutcome(text=text, structured=structured), names

    def _unknown_filter(self, args: ToolSearchInput) -> ToolOutcome | None:
        """A category or source no tool has is a mistake to name, not an empty answer."""
        for field_name, value in (("category", args.category), ("source", args.source)):
            if not value:
                continue
            known = self.registry.categories() if field_name == "category" else self.registry.sources()
            if value not in known:
                return ToolOutcome.error(
                    f"invalid arguments for tool_search: {field_name}: no tool has {field_name} {value[:64]!r}; "
                    f"known: {', '.join(known) or 'none'}"
                )
        return None

    @staticmethod
    def _markdown(query: str, hits: list[Any], via: str) -> str:
        lines = [f"Tools for {query!r} (call via {via}):"]
        for hit in hits:
            schema = json.dumps(hit.spec.input_schema, ensure_ascii=False, separators=(",", ":"))
            lines.append(
                f"- **{hit.name}** ({hit.score}){_kind(hit.spec)}: {hit.spec.description}\n  schema: `{schema}`"
            )
        return "\n".join(lines)

    def unwrap_call(self, arguments: dict[str, Any] | None) -> tuple[str, dict[str, Any]] | ToolOutcome:
        """Validate ``tool_call``'s own arguments; return the target and its arguments."""
        try:
            args = ToolCallInput.model_validate(arguments or {})
        except ValidationError as exc:
            return ToolOutcome.error(describe_validation_error("tool_call", exc))
        if args.name in GATEWAY_TOOL_NAMES:
            return ToolOutcome.error(f"tool_call runs catalogue tools; call {args.name} directly")
        return args.name, args.arguments

    def unknown(self, name: str) -> ToolOutcome:
        why = self.upstream_status.why_missing(name) if self.upstream_status is not None else None
        if why is not None:
            return ToolOutcome.error(f"tool {name!r} is not available: {why}")
        close = self.registry.closest_names(name)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        return ToolOutcome.error(f"unknown tool {name!r}.{hint} Use tool_search to find tools.", suggestions=close)

    async def check(self, ctx: Any, name: str, arguments: dict[str, Any] | None) -> Checked | ToolOutcome:
        """Everything before a tool runs, once: references resolved, arguments validated, the caller authorised.

        The answer is the call ready to ``run``, or the tool error to send. The task paths check a
        ``campaign_start`` here too, so every way into a tool refuses the same input the same way.
        """
        spec = self.registry.get(name)
        if spec is None or spec.handler is None:
            return self.unknown(name)
        arguments = arguments or {}
        if self.objects is not None:
            resolved = await self.objects.resolve(ctx, spec, arguments)
            if isinstance(resolved, ToolOutcome):
                return resolved
            arguments = resolved
        unknown = _unknown_arguments(spec.input_schema, arguments)
        if unknown:
            allowed = ", ".join(sorted(spec.input_schema.get("properties", {}))) or "none"
            return ToolOutcome.error(
                f"invalid arguments for {name}: unknown argument(s) {', '.join(unknown)}; allowed: {allowed}",
                inputSchema=spec.input_schema,
            )
        validated: BaseModel | None = None
        if spec.input_model is not None:
            try:
                validated = spec.input_model.model_validate(arguments)
            except ValidationError as exc:
                return ToolOutcome.error(describe_validation_error(name, exc), inputSchema=spec.input_schema)
        else:
            problem = _jsonschema_problem(spec.input_schema, arguments)
            if problem is not None:
                return ToolOutcome.error(f"invalid arguments for {name}: {problem}", inputSchema=spec.input_schema)
        try:
            if self.authorize is not None:
                await self.authorize(ctx, spec, arguments)
        except DeeprError as exc:
            return ToolOutcome.from_exception(exc)
        return Checked(spec, arguments, validated)

    async def run(self, ctx: Any, call: Checked) -> ToolOutcome:
        """Run a checked call and map every failure to a tool error; the handler gets the validated model."""
        spec = call.spec
        assert spec.handler is not None
        try:
            result = await spec.handler(ctx, call.arguments if call.validated is None else call.validated)
            outcome = to_outcome(result)
            return outcome if self.objects is None else await self.objects.finish(ctx, spec, outcome)
        except DeeprError as exc:
            return ToolOutcome.from_exception(exc)
        except ValidationError as exc:  # a model the handler built from the caller's arguments
            return ToolOutcome.error(describe_validation_error(spec.name, exc))
        except Exception:
            logger.exception("tool %s failed", spec.name)
            return ToolOutcome.error(f"internal error in {spec.name}; the server logged the details and keeps serving")

    async def invoke(self, ctx: Any, name: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        """``check`` then ``run``: the one path every call takes (plain, ``tool_call``, the apps view)."""
        call = await self.check(ctx, name, arguments)
        return call if isinstance(call, ToolOutcome) else await self.run(ctx, call)


@dataclass(frozen=True, slots=True)
class Checked:
    """A call that passed ``Gateway.check``: its tool, resolved arguments and (for catalogue tools) the model."""

    spec: ToolSpec
    arguments: dict[str, Any]
    validated: BaseModel | None


def _kind(spec: ToolSpec) -> str:
    """A markdown hit's marker from its annotations: what a reader should know before calling."""
    hints = spec.annotations
    if hints is None:
        return ""
    if hints.read_only:
        return " [read-only]"
    return " [destructive]" if hints.may_destroy else ""


def _unknown_arguments(schema: dict[str, Any], arguments: dict[str, Any]) -> list[str]:
    """Arguments the schema does not name, unless it explicitly allows extras."""
    if schema.get("additionalProperties") is True:
        return []
    known = schema.get("properties", {})
    return sorted(k for k in arguments if k not in known)


_VALIDATORS: dict[int, tuple[dict[str, Any], Any]] = {}
"""Compiled validators by schema identity: checking and compiling a schema costs ~60x validating
against it, and federated tools (no input model) are validated this way on every call."""


def _validator(schema: dict[str, Any]) -> Any:
    """The schema's compiled validator, or ``None`` for a schema that is itself invalid."""
    hit = _VALIDATORS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
        validator = cls(schema)
    except jsonschema.SchemaError:
        validator = None
    if len(_VALIDATORS) >= 10_000:
        _VALIDATORS.clear()
    _VALIDATORS[id(schema)] = (schema, validator)  # the schema is kept, so its id is not reused
    return validator


def _jsonschema_problem(schema: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    validator = _validator(schema)
    if validator is None:
        return None
    try:
        exc = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    except referencing.exceptions.Unresolvable as bad:  # the tool's own schema is broken (a dangling $ref)
        return f"the tool's inputSchema cannot be resolved ({bad}); the tool cannot be called until it is fixed"
    if exc is None:
        return None
    where = ".".join(str(p) for p in exc.absolute_path) or "arguments"
    return f"{where}: {exc.message}"
