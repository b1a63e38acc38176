"""deepr-mcp's tool specs and outcomes as MCP wire types (the one place they are translated)."""

from __future__ import annotations

import mcp_types as types

from deepr_mcp.gateway.outcome import ToolOutcome
from deepr_mcp.gateway.spec import ToolSpec

__all__ = ["to_call_result", "to_mcp_tool"]


def to_mcp_tool(spec: ToolSpec) -> types.Tool:
    execution = types.ToolExecution(task_support=spec.task_support) if spec.task_support else None  # type: ignore[arg-type]
    tool = types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.input_schema,
        execution=execution,
        _meta=spec.meta,
    )
    annotations = spec.annotations.to_mcp() if spec.annotations is not None else None
    if spec.title is not None or annotations or spec.output_schema is not None:
        tool = types.Tool.model_validate(
            {
                **tool.model_dump(by_alias=True, exclude_none=True),
                **({"title": spec.title} if spec.title is not None else {}),
                **({"annotations": annotations} if annotations else {}),
                **({"outputSchema": spec.output_schema} if spec.output_schema is not None else {}),
            },
            by_name=False,
        )
    return tool


def to_call_result(outcome: ToolOutcome) -> types.CallToolResult:
    if outcome.content is not None:  # an upstream's result, passed on as it came
        return types.CallToolResult.model_validate(
            {"content": outcome.content, "structuredContent": outcome.structured, "isError": outcome.is_error},
            by_name=False,
        )
    return types.CallToolResult(
        content=[types.TextContent(text=outcome.text)],
        structured_content=outcome.structured,
        is_error=outcome.is_error,
    )
