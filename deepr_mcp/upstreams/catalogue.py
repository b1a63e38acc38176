"""An upstream's tools in the ``ToolRegistry``: prefixed, filtered, kept in step, searchable while it is down.

Each upstream tool becomes a ``ToolSpec`` named ``prefix + name`` (characters outside letters,
digits, ``_`` and ``-`` become ``_``, so every client accepts the name; a name past 64
characters is cut and given a short hash). It keeps its own ``inputSchema``, title,
annotations and ``outputSchema``, and its handler passes the upstream's result on unchanged
(``tools/list`` shows that ``outputSchema`` widened to also admit the preview a big result becomes:
``Gateway.as_listed``).
The last listing is kept in ``<data_dir>/upstreams/<name>.tools.json``: an upstream that is down
at start-up is still found by ``tool_search``, and calling it says why it cannot answer.
A name already taken by a local tool (or another upstream's) is left out and reported, and so is
a tool whose ``inputSchema`` has a ``$ref`` that points nowhere (every call would fail validating
it) and every tool past the upstream's ``max_tools``. Each reason is logged once, when it appears.
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
from deepr_mcp.upstreams.schemas import schema_problem

__all__ = ["UpstreamCatalogue", "published_name", "result_size"]

logger = logging.getLogger(__name__)

MAX_NAME = 64
DENIED = "left out by allow/deny"


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
        """Upstream tool name -> why it is left out (denied, its name is taken, its schema is broken)."""
        self.over_cap: list[str] = []
        """Upstream tool names left out because ``max_tools`` were already published (in listing order)."""
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
        before, self.skipped, self.over_cap = self.skipped, {}, []
        cap = self.settings.max_tools
        for tool in tools:
            if not self.settings.takes(tool.name):
                self.skipped[tool.name] = DENIED
                continue
            if len(published) >= cap:
                self.over_cap.append(tool.name)
                continue
            name = published_name(self.settings.tool_prefix, tool.name)
            if name in GATEWAY_TOOL_NAMES:
                self.skipped[tool.name] = f"{name!r} is the gateway's own tool; set a prefix for this upstream"
                continue
            holder = self.registry.get(name)
            if name in published or (holder is not None and holder.upstream != self.settings.name):
                owner = "a local tool" if holder is not None and holder.upstream is None else "another tool"
                self.skipped[tool.name] = f"{name!r} is already {owner}'s name; set a prefix for this upstream"
                continue
            problem = schema_problem(tool.input_schema)
            if problem is not None:
                self.skipped[tool.name] = f"{problem}; calls could not be validated"
                continue
            published[name] = tool.name
            specs.append(self._spec(name, tool))
        for tool_name, why in self.skipped.items():
            if before.get(tool_name) != why and why != DENIED:
                logger.warning("upstream %s: tool %s left out: %s", self.settings.name, tool_name, why)
        if self.over_cap:
            logger.warning(
                "upstream %s: %d tools left out past max_tools (%d), from %s on; raise max_tools or narrow allow",
                self.settings.name,
                len(self.over_cap),
                cap,
                self.over_cap[0],
            )
        for gone in set(self.published) - set(published):
            self.registry.unregister(gone)
        self.registry.register_many(specs)
        self.published = published
        return changed

    def over_cap_summary(self) -> dict[str, Any] | None:
        """What ``max_tools`` left out, for ``upstreams check``: how many, and the first few names."""
        if not self.over_cap:
            return None
        return {
            "count": len(self.over_cap),
            "max_tools": self.settings.max_tools,
            "first": self.over_cap[:10],
            "why": f"only the first {self.settings.max_tools} tools are published (max_tools); "
            "raise max_tools or narrow allow to choose which",
        }

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
