"""What a catalogue tool is: a name, a description, an input schema and a handler.

``ToolSpec`` is public API (outside checks import it). Tools written in this package are
declared with ``define_tool`` from a pydantic input model, so the ``inputSchema`` clients
see and the validation the handler relies on come from one source.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["SearchHit", "ToolHandler", "ToolSpec", "clean_schema", "define_tool"]

ToolHandler = Callable[[Any, dict[str, Any]], Awaitable[Any]]
"""``async handler(ctx, arguments) -> result``: arguments are already validated against the schema."""


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
    or ``own`` (owner or admin only: sharing)."""
    meta: dict[str, Any] | None = field(default=None, compare=False)
    """The tool's ``_meta`` in ``tools/list`` (MCP Apps: ``{"ui": {"resourceUri": ..., "visibility": ...}}``)."""

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
) -> Callable[[Callable[[Any, InputT], Awaitable[Any]]], ToolSpec]:
    """Decorate ``async def handler(ctx, args: InputModel)`` and return its ``ToolSpec``.

    ``scope`` is the permission a caller needs, declared here beside the tool so the catalogue
    is the one place to read who may call what. The spec's handler receives the already-validated
    model instance rebuilt from the arguments, so handlers never see raw JSON.
    """

    def decorate(func: Callable[[Any, InputT], Awaitable[Any]]) -> ToolSpec:
        async def handler(ctx: Any, arguments: dict[str, Any]) -> Any:
            return await func(ctx, input_model.model_validate(arguments))

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
        )

    return decorate
