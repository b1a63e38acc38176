"""What a catalogue tool is: a name, a description, an input schema and a handler.

``ToolSpec`` is public API (outside checks import it). Tools written in this package are
declared with ``define_tool`` from a pydantic input model, so the ``inputSchema`` clients
see and the validation the handler relies on come from one source.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["LOCAL_SOURCE", "SearchHit", "ToolHandler", "ToolHints", "ToolSpec", "clean_schema", "define_tool"]

ToolHandler = Callable[[Any, Any], Awaitable[Any]]
"""``async handler(ctx, arguments) -> result``: arguments are already validated against the schema (the
tool's input model instance for tools declared with ``define_tool``, the JSON object for federated ones)."""


LOCAL_SOURCE = "deepr"
"""``ToolSpec.source`` of this server's own tools; a federated tool carries its upstream's name."""

_WIRE_NAMES = {
    "read_only": "readOnlyHint",
    "destructive": "destructiveHint",
    "idempotent": "idempotentHint",
    "open_world": "openWorldHint",
    "title": "title",
}


@dataclass(frozen=True, slots=True)
class ToolHints:
    """MCP tool annotations: what a tool does to the world, so ranking and clients can tell.

    ``None`` means the tool did not say (an upstream tool without annotations). Per the MCP
    spec an unsaid ``destructiveHint`` defaults to true for a tool that is not read-only.
    """

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None
    title: str | None = None

    @classmethod
    def parse(cls, value: ToolHints | Mapping[str, Any] | None) -> ToolHints | None:
        """From an MCP ``annotations`` object (camelCase) or the same keys in snake_case; unknown keys ignored."""
        if value is None or isinstance(value, ToolHints):
            return value
        found: dict[str, Any] = {}
        for attr, wire in _WIRE_NAMES.items():
            raw = value.get(wire, value.get(attr))
            if attr == "title":
                found[attr] = raw if isinstance(raw, str) else None
            else:
                found[attr] = raw if isinstance(raw, bool) else None
        return cls(**found)

    def to_mcp(self) -> dict[str, Any]:
        """The MCP wire form, only the hints that were given."""
        return {_WIRE_NAMES[f.name]: v for f in fields(self) if (v := getattr(self, f.name)) is not None}

    @property
    def may_destroy(self) -> bool:
        """Destructive by the spec's reading: not read-only and not declared non-destructive."""
        return self.read_only is not True and self.destructive is not False


@dataclass(slots=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]
    category: str = "general"
    handler: ToolHandler | None = None
    input_model: type[BaseModel] | None = field(default=None, repr=False, compare=False)
    task_support: str | None = field(default=None, compare=False)
    """``"optional"`` when a 2025-11-25 client may call it task-augmented (MCP tasks)."""
    scope: str = field(default="research", compare=False)
    """The scope a caller needs (read, research, approve, admin); declared with the tool, enforced by
    the gateway. Tools registered without one (federated upstreams) need ``research``."""
    ownership: str = field(default="see", compare=False)
    """For the record its ``campaign_id``/``expert_id`` names: ``see`` (owner, shared with, or admin)
    or ``own`` (owner or admin only: sharing); ``none`` for federated tools, whose arguments are not deepr's."""
    title: str | None = field(default=None, compare=False)
    """A display name, listed as the tool's ``title`` (upstream tools keep their own)."""
    annotations: ToolHints | None = field(default=None, compare=False)
    """MCP annotations (read-only, destructive, idempotent, open-world); a dict in MCP's camelCase
    form (an upstream's own) is accepted and parsed. Shown in ``tools/list`` and ``tool_search``; used in ranking."""
    output_schema: dict[str, Any] | None = field(default=None, compare=False)
    """The tool's ``outputSchema`` when it declares one (upstream tools keep theirs); ``tools/list`` shows it
    through ``Gateway.as_listed``, widened to admit the preview the object store answers for a big result."""
    upstream: str | None = field(default=None, compare=False)
    """The federated upstream server this tool comes from; ``None`` for deepr-mcp's own tools."""
    source: str = field(default=LOCAL_SOURCE, compare=False)
    """Where the tool lives: ``deepr`` for this server's own, else the upstream's name."""
    handles_objects: bool = field(default=False, compare=False)
    """The tool works on stored objects itself (``object_get``): its arguments' ``@obj_`` references
    are passed as written and its results are never moved to the object store."""
    whole: bool = field(default=False, compare=False)
    """The result is always answered whole, never as a stored object's preview: the campaign dashboard
    renders it as it comes (a campaign's sources and report, bounded by the campaign's own limits)."""

    meta: dict[str, Any] | None = field(default=None, compare=False)
    """The tool's ``_meta`` in ``tools/list`` (MCP Apps: ``{"ui": {"resourceUri": ..., "visibility": ...}}``)."""

    def __post_init__(self) -> None:
        if self.annotations is not None and not isinstance(self.annotations, ToolHints):
            self.annotations = ToolHints.parse(self.annotations)
        if self.upstream is not None and self.source == LOCAL_SOURCE:
            self.source = self.upstream

    def summary(self) -> str:
        """The first sentence of the description, for one-line listings."""
        first = self.description.strip().split("\n", 1)[0]
        return first.split(". ", 1)[0].rstrip(".") + "."


@dataclass(frozen=True, slots=True)
class SearchHit:
    name: str
    score: float
    spec: ToolSpec


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop pydantic's auto-generated ``title`` keys: they repeat the property names and cost tokens."""

    def walk(node: Any, parent_key: str | None) -> Any:
        if isinstance(node, dict):
            return {
                k: walk(v, k)
                for k, v in node.items()
                if not (k == "title" and parent_key != "properties" and isinstance(v, str))
            }
        if isinstance(node, list):
            return [walk(v, None) for v in node]
        return node

    return walk(schema, None)


InputT = TypeVar("InputT", bound=BaseModel)


def define_tool(
    name: str,
    description: str,
    input_model: type[InputT],
    *,
    category: str = "general",
    scope: str,
    ownership: str = "see",
    read_only: bool | None = None,
    destructive: bool = False,
    idempotent: bool | None = None,
    open_world: bool = False,
    handles_objects: bool = False,
    whole: bool = False,
) -> Callable[[Callable[[Any, InputT], Awaitable[Any]]], ToolSpec]:
    """Decorate ``async def handler(ctx, args: InputModel)`` and return its ``ToolSpec``.

    ``scope`` is the permission a caller needs, declared here beside the tool so the catalogue
    is the one place to read who may call what, and so are its MCP annotations: ``read_only``
    (default: the tool needs only the ``read`` scope), ``destructive``, ``idempotent`` (default:
    read-only tools are) and ``open_world``. The spec's handler receives the already-validated
    model instance rebuilt from the arguments, so handlers never see raw JSON.
    """

    def decorate(func: Callable[[Any, InputT], Awaitable[Any]]) -> ToolSpec:
        async def handler(ctx: Any, arguments: Any) -> Any:
            # The gateway passes the model it validated; a raw dict (a direct caller) is validated here.
            args = arguments if isinstance(arguments, input_model) else input_model.model_validate(arguments)
            return await func(ctx, args)

        reads = scope == "read" if read_only is None else read_only
        schema = clean_schema(input_model.model_json_schema())
        schema.setdefault("properties", {})
        return ToolSpec(
            name=name,
            description=description,
            input_schema=schema,
            category=category,
            handler=handler,
            input_model=input_model,
            scope=scope,
            ownership=ownership,
            annotations=ToolHints(
                read_only=reads,
                destructive=destructive and not reads,
                idempotent=reads if idempotent is None else idempotent,
                open_world=open_world,
            ),
            handles_objects=handles_objects,
            whole=whole,
        )

    return decorate
