"""A tool's answer before it becomes an MCP ``CallToolResult``.

Kept free of MCP types so handlers and the gateway can be reasoned about on their own;
``tool_call`` passes a target's outcome through unchanged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from deepr_mcp.errors import DeeprError

__all__ = ["ToolOutcome", "to_outcome"]


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False
    content: list[dict[str, Any]] | None = None
    """MCP content blocks as on the wire, passed on unchanged (an upstream tool's result); when
    ``None`` the result's content is one text block holding ``text``."""

    @classmethod
    def error(cls, message: str, **details: Any) -> ToolOutcome:
        return cls(text=f"Error: {message}", structured={"error": message, **details}, is_error=True)

    @classmethod
    def from_exception(cls, exc: DeeprError) -> ToolOutcome:
        return cls.error(exc.message, code=exc.code)


def to_outcome(value: Any) -> ToolOutcome:
    """Models and dicts become structured content with the same JSON as text; strings stay text."""
    if isinstance(value, ToolOutcome):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, dict):
        return ToolOutcome(text=json.dumps(value, ensure_ascii=False, separators=(",", ":")), structured=value)
    if isinstance(value, str):
        return ToolOutcome(text=value)
    raise TypeError(f"tool handlers return a model, dict, str or ToolOutcome, not {type(value).__name__}")
