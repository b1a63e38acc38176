"""Reading big results that were stored instead of sent: one part by path, or a range."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from deepr_mcp.errors import Conflict
from deepr_mcp.gateway.outcome import ToolOutcome
from deepr_mcp.gateway.spec import define_tool
from deepr_mcp.objects import Objects
from deepr_mcp.tools.context import ToolContext

REF = Field(
    min_length=5,
    max_length=1000,
    description="A stored object and a path into it: '@obj_ab12', '@obj_ab12.items[3].title', '@obj_ab12[\"a key\"]'",
)


class GetInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ref: str = REF


class SliceInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ref: str = REF
    start: int = Field(0, ge=0, description="First item (array) or character (string), from 0")
    end: int | None = Field(None, ge=0, description="One past the last; omitted: to the end")


def _objects(ctx: ToolContext) -> Objects:
    if ctx.services.objects is None:
        raise Conflict("this server has no object store")
    return ctx.services.objects


@define_tool(
    "object_get",
    "Read a stored big tool result (a truncated preview gave its ref): the whole object or one part of it "
    "by path, e.g. '@obj_ab12.items[3].title'; a part that is still big comes back as a preview of that part.",
    GetInput,
    category="objects",
    scope="read",
    read_only=True,
    handles_objects=True,
)
async def object_get(ctx: ToolContext, args: GetInput) -> ToolOutcome:
    return await _objects(ctx).get(ctx, args.ref)


@define_tool(
    "object_slice",
    "Read a range of a stored array or string (items or characters start to end) from a big tool result, "
    "e.g. the next page of results; says where to continue when more is left.",
    SliceInput,
    category="objects",
    scope="read",
    read_only=True,
    handles_objects=True,
)
async def object_slice(ctx: ToolContext, args: SliceInput) -> ToolOutcome:
    return await _objects(ctx).slice(ctx, args.ref, args.start, args.end)


TOOLS = [object_get, object_slice]
