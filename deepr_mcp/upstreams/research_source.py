"""An upstream tool as a research source: its result items become passages a report can cite.

The tool is called with the sub-question in ``query_arg`` (plus the configured fixed arguments),
through the upstream's shared session (same timeout, breaker and concurrency as any call).
Items are read from the result the way search tools shape it: a list in ``structuredContent``
(or in a text block holding JSON) whose entries carry a title, a URL and some text; otherwise
each text block (split at blank lines) and each embedded text resource is one item. A citation
names the upstream and its tool as the source and the item (its title, URL or number) as the place.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import mcp_types as types

from deepr_mcp.config.upstreams import ResearchSourceSettings
from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.engine import PASSAGE_MAX_CHARS
from deepr_mcp.research.passage import Passage
from deepr_mcp.upstreams.errors import UpstreamError
from deepr_mcp.upstreams.pool import Upstreams

__all__ = ["UpstreamSource", "items_of", "make_sources"]

TEXT_KEYS = ("text", "snippet", "content", "body", "summary", "description", "abstract")
TITLE_KEYS = ("title", "name", "heading")
WHERE_KEYS = ("url", "uri", "link", "href", "path", "id")
MAX_ITEMS = 50


class UpstreamSource:
    """One ``[[research.sources]]`` entry, answering through the federation's connection."""

    def __init__(self, settings: ResearchSourceSettings, upstreams: Upstreams) -> None:
        upstream = upstreams.connection(settings.upstream).settings
        if not upstream.takes(settings.tool):
            raise InvalidInput(
                f"research source {settings.upstream}/{settings.tool}: the tool is left out by that upstream's "
                "allow/deny; allow it there or name another tool"
            )
        self.settings = settings
        self.upstreams = upstreams
        self.provider = f"upstream:{settings.upstream}"
        self.model = settings.tool
        self.limit = settings.limit
        self.cost_per_call = settings.cost_per_call

    async def search(self, query: str) -> Sequence[Passage]:
        connection = self.upstreams.connection(self.settings.upstream)
        arguments = {**self.settings.arguments, self.settings.query_arg: query}
        result = await connection.call_tool(self.settings.tool, arguments)
        if result.is_error:
            said = " ".join(t.text for t in result.content if isinstance(t, types.TextContent))[:300]
            raise UpstreamError(f"upstream {connection.name!r} tool {self.settings.tool} answered an error: {said}")
        source = f"upstream {self.settings.upstream}, tool {self.settings.tool}"
        passages = []
        for location, where, text in items_of(result)[: self.limit]:
            digest = hashlib.sha256(f"{source}\n{location}\n{text}".encode()).hexdigest()[:16]
            passages.append(
                Passage(
                    id=f"up-{digest}",
                    text=text[:PASSAGE_MAX_CHARS],
                    source=source,
                    location=location,
                    score=0.0,
                    path=where,
                )
            )
        return passages


def make_sources(settings: list[ResearchSourceSettings], upstreams: Upstreams) -> list[UpstreamSource]:
    return [UpstreamSource(s, upstreams) for s in settings]


def items_of(result: types.CallToolResult) -> list[tuple[str, str, str]]:
    """``(location, where, text)`` per result item: location for the citation, where = its URL or path."""
    data: Any = result.structured_content
    texts = [b.text for b in result.content if isinstance(b, types.TextContent)]
    if data is None and len(texts) == 1:
        try:
            data = json.loads(texts[0])
        except ValueError:
            data = None
    listed = _item_list(data)
    if listed is not None:
        return [item for i, raw in enumerate(listed[:MAX_ITEMS]) if (item := _item(i, raw)) is not None]
    items: list[tuple[str, str, str]] = []
    for block in result.content:
        if isinstance(block, types.EmbeddedResource) and isinstance(block.resource, types.TextResourceContents):
            items.append((str(block.resource.uri), str(block.resource.uri), block.resource.text.strip()))
    paragraphs = [p.strip() for text in texts for p in text.split("\n\n") if p.strip()]
    items += [(f"item {i + 1}", "", p) for i, p in enumerate(paragraphs[:MAX_ITEMS])]
    return items


def _item_list(data: Any) -> list[Any] | None:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        return next((v for v in data.values() if isinstance(v, list) and v), None)
    return None


def _item(index: int, raw: Any) -> tuple[str, str, str] | None:
    if isinstance(raw, str):
        return (f"item {index + 1}", "", raw.strip()) if raw.strip() else None
    if not isinstance(raw, dict):
        return None
    title = next((str(raw[k]) for k in TITLE_KEYS if isinstance(raw.get(k), str) and raw[k].strip()), "")
    where = next((str(raw[k]) for k in WHERE_KEYS if isinstance(raw.get(k), str | int) and str(raw[k])), "")
    body = next((str(raw[k]) for k in TEXT_KEYS if isinstance(raw.get(k), str) and raw[k].strip()), "")
    text = body or json.dumps(raw, ensure_ascii=False)
    label = f"item {index + 1}" + (f": {title}" if title else "") + (f" ({where})" if where else "")
    return label, where, (f"{title}. {text}" if title and title not in text else text)
