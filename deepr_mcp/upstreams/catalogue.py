"""An upstream's tools in the ``ToolRegistry``: prefixed, filtered, kept in step, searchable while it is down.

Each upstream tool becomes a ``ToolSpec`` named ``prefix + name`` (characters outside letters,
digits, ``_`` and ``-`` become ``_``, so every client accepts the name; a name past 64
characters is cut and given a short hash). It keeps its own ``inputSchema``, title,
annotations and ``outputSchema``, and its handler passes the upstream's result on unchanged
(``tools/list`` shows that ``outputSchema`` widened to also admit the preview a big result becomes:
``Gateway.as_listed``).
The last listing is kept in ``<data_dir>/upstreams/<name>.tools.json``: an upstream that is down
at start-up is still found by ``tool_search``, and calling it says why it cannot answer.
A name already taken by a local tool (or another upstream's) is left out and reported.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import mcp_types as types

from deepr_mcp.gateway.gateway import GATEWAY_TOOL_NAMES
from deepr_mcp.gateway.outcome import ToolOutcome
from deepr_mcp.gateway.registry import ToolRegistry
from deepr_mcp.gateway.spec import ToolSpec
from deepr_mcp.upstreams.connection import UpstreamConnection
from deepr_mcp.upstreams.errors import UpstreamError

__all__ = ["UpstreamCatalogue", "published_name", "result_size"]

logger = logging.getLogger(__name__)

MAX_NAME = 64


def published_name(prefix: str, tool_name: str) -> str:
    """``prefix + tool_name`` made valid for every client: ``[A-Za-z0-9_-]{1,64}``."""
    raw = prefix + tool_name
    name = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in raw) or "_"
    if len(name) > MAX_NAME:
        digest = hashlib.sha256(raw.encode("utf-8", errors="replace")).hexdigest()[:8]
        name = name[: MAX_NAME - 9] + "_" + digest
    return name


def result_size(result: types.CallToolResult) -> int:
    """About how many bytes the result is as JSON: its texts, blobs and structured content."""
    size = 0
    for block in result.content:
        for attr in ("text", "data", "blob"):
            value = getattr(block, attr, None) or getattr(getattr(block, "resource", None), attr, None)
            if isinstance(value, str):
                size += len(value)
    if result.structured_content is not None:
        size += len(json.dumps(result.structured_content, separators=(",", ":")))
    return size


def to_outcome(result: types.CallToolResult) -> ToolOutcome:
    """The upstream's content blocks, structured content and ``isError`` exactly as sent."""
    content = [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content]
    text = "\n".join(b["text"] for b in content if b.get("type") == "text" and isinstance(b.get("text"), str))
    return ToolOutcome(text=text, structured=result.structured_content, is_error=bool(result.is_error), content=content)


class UpstreamCatalogue:
    """Keeps one upstream's tools registered; ``sync`` re-lists and applies the difference."""

    def __init__(self, connection: UpstreamConnection, registry: ToolRegistry, cache_dir: Path | None) -> None:
        self.connection = connection
        self.settings = connection.settings
        self.registry = registry
        self.cache_file = cache_dir / f"{self.settings.name}.tools.json" if cache_dir is not None else None
        self.published: dict[str, str] = {}
        """Published name -> the upstream's own name, for what is registered now."""
        self.skipped: dict[str, str] = {}
        """Upstream tool name -> why it is left out (denied, or its name is taken)."""
        self.synced = False
        """Whether a live listing has been applied (not just the cache)."""
        self.changed = False
        """Whether the last sync changed what is published."""
        self.signature = ""
        """A digest of the published tools as listed, to tell a real change from a re-listing."""

    def load_cache(self) -> int:
        """Register the last listing kept on disk; returns how many tools it held."""
        if self.cache_file is None or not self.cache_file.is_file():
            return 0
        try:
            raw = json.loads(self.cache_file.read_text(encoding="utf-8"))
            tools = [types.Tool.model_validate(item, by_name=False) for item in raw]
        except (OSError, ValueError) as exc:
            logger.warning("upstream %s: ignoring unreadable %s: %s", self.settings.name, self.cache_file, exc)
            return 0
        self.apply(tools)
        return len(tools)

    async def sync(self) -> list[str]:
        """List the upstream's tools now and bring the registry in step; returns the published names."""
        tools = await self.connection.list_tools()
        self.changed = self.apply(tools)
        self.synced = True
        self._save(tools)
        return sorted(self.published)

    def apply(self, tools: list[types.Tool]) -> bool:
        """Register ``tools`` in place of the previous ones; ``True`` when what is published changed."""
        taken = [
            t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools if self.settings.takes(t.name)
        ]
        signature = hashlib.sha256(json.dumps(taken, sort_keys=True).encode()).hexdigest()
        changed, self.signature = signature != self.signature, signature
        specs: list[ToolSpec] = []
        published: dict[str, str] = {}
        self.skipped = {}
        for tool in tools:
            if not self.settings.takes(tool.name):
                self.skipped[tool.name] = "left out by allow/deny"
                continue
            name = published_name(self.settings.tool_prefix, tool.name)
            if name in GATEWAY_TOOL_NAMES:
                self.skipped[tool.name] = f"{name!r} is the gateway's own tool; set a prefix for this upstream"
                continue
            holder = self.registry.get(name)
            if name in published or (holder is not None and holder.upstream != self.settings.name):
                owner = "a local tool" if holder is not None and holder.upstream is None else "another tool"
                self.skipped[tool.name] = f"{name!r} is already {owner}'s name; set a prefix for this upstream"
                logger.warning(
                    "upstream %s: tool %s left out: %s", self.settings.name, tool.name, self.skipped[tool.name]
                )
                continue
            published[name] = tool.name
            specs.append(self._spec(name, tool))
        for gone in set(self.published) - set(published):
            self.registry.unregister(gone)
        self.registry.register_many(specs)
        self.published = published
        return changed

    def _spec(self, name: str, tool: types.Tool) -> ToolSpec:
        connection, original = self.connection, tool.name
        limit = self.settings.max_result_bytes
        hints = tool.annotations
        retry_safe = bool(hints and (hints.read_only_hint or hints.idempotent_hint))

        async def handler(ctx: Any, arguments: dict[str, Any]) -> ToolOutcome:
            result = await connection.call_tool(original, arguments, retry_safe=retry_safe)
            size = result_size(result)
            if size > limit:
                raise UpstreamError(
                    f"upstream {connection.name!r} tool {original} returned about {size:,} bytes, over this "
                    f"upstream's max_result_bytes ({limit:,}); ask for less (a narrower query or a page)"
                )
            return to_outcome(result)

        annotations = (
            tool.annotations.model_dump(mode="json", by_alias=True, exclude_none=True) if tool.annotations else None
        )
        description = tool.description or tool.title or f"{original} (from upstream {self.settings.name})"
        return ToolSpec(
            name=name,
            description=description,
            input_schema=dict(tool.input_schema),
            category=f"upstream:{self.settings.name}",
            handler=handler,
            title=tool.title,
            annotations=annotations,
            output_schema=dict(tool.output_schema) if tool.output_schema is not None else None,
            upstream=self.settings.name,
            scope=self.settings.scope,
            ownership="none",
        )

    def _save(self, tools: list[types.Tool]) -> None:
        if self.cache_file is None:
            return
        try:
            self.cache_file.parent.mkdir(parents=True, exist_ok=True)
            dumped = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
            tmp = self.cache_file.with_suffix(".tmp")
            tmp.write_text(json.dumps(dumped, ensure_ascii=False), encoding="utf-8")
            tmp.replace(self.cache_file)
        except OSError as exc:
            logger.warning(
                "upstream %s: could not keep its listing in %s: %s", self.settings.name, self.cache_file, exc
            )
