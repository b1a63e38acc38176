"""Web tools: search (SearXNG) and page fetch, both off until configured."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import anyio
from pydantic import Field

from deepr_mcp.gateway.spec import define_tool
from deepr_mcp.tools.campaigns import Strict
from deepr_mcp.tools.context import ToolContext


class SearchInput(Strict):
    query: str = Field(min_length=1, max_length=500, description="What to search the web for")
    limit: int = Field(5, ge=1, le=20)


@define_tool(
    "web_search",
    "Search the web through the configured SearXNG instance; returns titles, URLs and snippets.",
    SearchInput,
    category="web",
    scope="research",
    read_only=True,
    open_world=True,
)
async def web_search(ctx: ToolContext, args: SearchInput) -> dict[str, Any]:
    results = await ctx.services.web.search().search(args.query, args.limit)
    return {"query": args.query, "results": [asdict(r) for r in results]}


class FetchInput(Strict):
    url: str = Field(min_length=8, max_length=2048, description="http or https URL of a page")
    add_to_corpus: bool = Field(False, description="Also index the page so research can cite it")
    max_chars: int = Field(20_000, ge=100, le=200_000, description="Characters of text to return")


@define_tool(
    "web_fetch",
    "Download a web page as plain text (public addresses only), optionally adding it to the research corpus.",
    FetchInput,
    category="web",
    scope="research",
    read_only=False,
    open_world=True,
)
async def web_fetch(ctx: ToolContext, args: FetchInput) -> dict[str, Any]:
    page = await ctx.services.web.fetcher().fetch(args.url)
    indexed = None
    if args.add_to_corpus:
        heading = f"# {page.title or page.final_url}\n\n"
        result = await anyio.to_thread.run_sync(ctx.services.corpus.add_markdown, page.final_url, heading + page.text)
        indexed = {"status": result.status, "passages": result.passages}
    return {
        "url": page.url,
        "final_url": page.final_url,
        "title": page.title,
        "content_type": page.content_type,
        "bytes": page.bytes,
        "truncated": page.truncated,
        "text": page.text[: args.max_chars],
        "indexed": indexed,
    }


TOOLS = [web_search, web_fetch]
