"""Tools about the catalogue and the server itself, so an agent can orient without docs."""

from __future__ import annotations

from pydantic import BaseModel, Field

from deepr_mcp import __version__
from deepr_mcp.errors import NotFound
from deepr_mcp.gateway.spec import define_tool
from deepr_mcp.tools.context import ToolContext


class CatalogueListInput(BaseModel):
    category: str | None = Field(None, max_length=64, description="Only tools of this category, e.g. 'campaign'")


class CatalogueEntry(BaseModel):
    name: str
    category: str
    summary: str


class CatalogueListing(BaseModel):
    total: int
    categories: dict[str, int]
    tools: list[CatalogueEntry]


@define_tool(
    "catalogue_list",
    "List every tool in the catalogue by category with a one-line summary. Use it to browse "
    "what exists; use tool_search to get a tool's full input schema.",
    CatalogueListInput,
    category="catalogue",
    scope="read",
    read_only=True,
)
async def catalogue_list(ctx: ToolContext, args: CatalogueListInput) -> CatalogueListing:
    registry = ctx.services.registry
    counts: dict[str, int] = {}
    for spec in registry:
        counts[spec.category] = counts.get(spec.category, 0) + 1
    if args.category is not None and args.category not in counts:
        raise NotFound(f"no category {args.category!r}; categories are: {', '.join(sorted(counts))}")
    tools = [
        CatalogueEntry(name=s.name, category=s.category, summary=s.summary())
        for s in registry
        if args.category is None or s.category == args.category
    ]
    return CatalogueListing(total=len(registry), categories=dict(sorted(counts.items())), tools=tools)


class NoInput(BaseModel):
    pass


class ServerInfo(BaseModel):
    name: str = "deepr-mcp"
    version: str
    gateway_mode: str
    protocol_version: str
    catalogue_size: int
    provider: str
    data_dir: str


@define_tool(
    "server_info",
    "Show this deepr-mcp server's version, gateway mode, negotiated protocol version, "
    "catalogue size, research provider and data directory.",
    NoInput,
    category="catalogue",
    scope="read",
    read_only=True,
)
async def server_info(ctx: ToolContext, args: NoInput) -> ServerInfo:
    settings = ctx.services.settings
    return ServerInfo(
        version=__version__,
        gateway_mode=settings.gateway.mode,
        protocol_version=ctx.protocol_version,
        catalogue_size=len(ctx.services.registry),
        provider=settings.provider,
        data_dir=str(settings.data_dir),
    )


TOOLS = [catalogue_list, server_info]
