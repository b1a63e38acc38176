"""Sandbox tools: each campaign's working directory, reachable only through validated paths."""

from __future__ import annotations

import base64
from typing import Any, Literal

import anyio
from pydantic import Field

from deepr_mcp.errors import InvalidInput
from deepr_mcp.gateway.spec import define_tool
from deepr_mcp.jobs.store import StoreUnavailable
from deepr_mcp.tools.campaigns import CampaignRef
from deepr_mcp.tools.context import ToolContext

MAX_READ = 256 * 1024
PathField = Field(min_length=1, max_length=4096, description="Path relative to the campaign's sandbox")


def _entry(e: Any) -> dict[str, Any]:
    return {"path": e.path, "size": e.size, "is_dir": e.is_dir}


class ListInput(CampaignRef):
    path: str = Field(".", max_length=4096, description="Folder relative to the sandbox; '.' is its root")


@define_tool(
    "sandbox_list",
    "List the files in a campaign's sandbox (its plan, notes, raw sources and final report).",
    ListInput,
    category="sandbox",
    scope="read",
    read_only=True,
)
async def sandbox_list(ctx: ToolContext, args: ListInput) -> dict[str, Any]:
    await ctx.services.sandboxes.sync.caught_up()
    sandbox = ctx.services.sandboxes.get(args.campaign_id)
    listing = await anyio.to_thread.run_sync(sandbox.listing, args.path)
    return {
        "campaign_id": args.campaign_id,
        "entries": [_entry(e) for e in listing.entries],
        "skipped": listing.skipped,
    }


class ReadInput(CampaignRef):
    path: str = PathField
    offset: int = Field(0, ge=0, description="Byte offset to start at, for large files")
    length: int = Field(65536, ge=1, le=MAX_READ, description="Bytes to read (max 262144)")
    encoding: Literal["utf-8", "base64"] = "utf-8"


@define_tool(
    "sandbox_read",
    "Read a file from a campaign's sandbox, in byte ranges for large files (offset, length).",
    ReadInput,
    category="sandbox",
    scope="read",
    read_only=True,
)
async def sandbox_read(ctx: ToolContext, args: ReadInput) -> dict[str, Any]:
    await ctx.services.sandboxes.sync.caught_up()
    sandbox = ctx.services.sandboxes.get(args.campaign_id)
    data, size = await anyio.to_thread.run_sync(sandbox.read, args.path, args.offset, args.length)
    content = data.decode("utf-8", errors="replace") if args.encoding == "utf-8" else base64.b64encode(data).decode()
    end = args.offset + len(data)
    return {
        "path": args.path,
        "offset": args.offset,
        "bytes": len(data),
        "size": size,
        "next_offset": end if end < size else None,
        "encoding": args.encoding,
        "content": content,
    }


class WriteInput(CampaignRef):
    path: str = PathField
    content: str = Field(max_length=4 * 1024 * 1024, description="Text to write (or base64 with encoding=base64)")
    encoding: Literal["utf-8", "base64"] = "utf-8"
    append: bool = False


@define_tool(
    "sandbox_write",
    "Write or append a file in a campaign's sandbox (notes, drafts); quota-checked, all or nothing.",
    WriteInput,
    category="sandbox",
    scope="research",
    read_only=False,
    destructive=True,
    idempotent=True,
)
async def sandbox_write(ctx: ToolContext, args: WriteInput) -> dict[str, Any]:
    if args.encoding == "base64":
        try:
            data = base64.b64decode(args.content, validate=True)
        except ValueError:
            raise InvalidInput("content is not valid base64") from None
    else:
        data = args.content.encode("utf-8")
    sandbox = ctx.services.sandboxes.get(args.campaign_id)
    size = await anyio.to_thread.run_sync(lambda: sandbox.write(args.path, data, append=args.append))
    await _shared(ctx, f"{args.path!r} was written")  # with replicas: in Redis before it is acknowledged
    return {"path": args.path, "size": size}


async def _shared(ctx: ToolContext, done: str) -> None:
    """Acknowledge a change only once the other replicas' shared log holds it (at once without replicas)."""
    try:
        await ctx.services.sandboxes.sync.durable()
    except StoreUnavailable as exc:
        raise StoreUnavailable(
            f"{done} on this replica but is not yet shared ({exc.message}); it is sent when the store is back, "
            "so do not repeat an append"
        ) from None


class DeleteInput(CampaignRef):
    path: str = PathField


@define_tool(
    "sandbox_delete",
    "Delete a file or an empty folder from a campaign's sandbox.",
    DeleteInput,
    category="sandbox",
    scope="research",
    read_only=False,
    destructive=True,
    idempotent=True,
)
async def sandbox_delete(ctx: ToolContext, args: DeleteInput) -> dict[str, Any]:
    sandbox = ctx.services.sandboxes.get(args.campaign_id)
    await anyio.to_thread.run_sync(sandbox.delete, args.path)
    await _shared(ctx, f"{args.path!r} was deleted")
    return {"path": args.path, "deleted": True}


@define_tool(
    "sandbox_extract",
    "Get a campaign's result without its intermediate files: final_report.md and the artefact list only.",
    CampaignRef,
    category="sandbox",
    scope="read",
    read_only=True,
)
async def sandbox_extract(ctx: ToolContext, args: CampaignRef) -> dict[str, Any]:
    await ctx.services.sandboxes.sync.caught_up()  # with replicas: every change already logged is here
    extracted = await anyio.to_thread.run_sync(ctx.services.sandboxes.extract_results, args.campaign_id)
    return {
        "campaign_id": args.campaign_id,
        "final_report": extracted.final_report,
        "artifacts": [_entry(e) for e in extracted.artifacts],
        "skipped": extracted.skipped,
    }


TOOLS = [sandbox_list, sandbox_read, sandbox_write, sandbox_delete, sandbox_extract]
