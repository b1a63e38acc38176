"""Web search and page fetch against a real aiohttp server on 127.0.0.1.

Nothing here ever connects outside loopback: refusals of private and link-local literals are
asserted to happen before any socket is opened.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from deepr_mcp.errors import InvalidInput, ProviderError
from deepr_mcp.research import web as webmod
from deepr_mcp.research.web import PageFetcher, SearxngSearch, make_session
from tests.clients import connect, text_of
from tests.servers import loopback_app


@asynccontextmanager
async def site() -> AsyncIterator[tuple[str, list[str]]]:
    seen: list[str] = []

    async def handler(request: web.Request) -> web.StreamResponse:
        seen.append(request.path)
        if request.path == "/search":
            mode = request.query.get("q")
            if mode == "boom":
                return web.Response(status=500)
            if mode == "junk":
                return web.Response(text="<html>", content_type="text/html")
            return web.json_response(
                {"results": [{"url": "https://example.org/a", "title": "A", "content": "about a", "engine": "x"}]}
            )
        if request.path == "/page":
            return web.Response(
                text="<html><head><title>Cables</title><script>evil()</script></head><body><h1>Repair</h1>"
                "<p>Ships use a grapnel.</p><style>p{}</style></body></html>",
                content_type="text/html",
            )
        if request.path == "/plain":
            return web.Response(text="just text", content_type="text/plain")
        if request.path == "/big":
            resp = web.StreamResponse(headers={"Content-Type": "text/plain"})
            await resp.prepare(request)
            for _ in range(100):
                await resp.write(b"x" * 10_000)
            return resp
        if request.path == "/slow":
            await asyncio.sleep(2)
            return web.Response(text="late", content_type="text/plain")
        if request.path == "/binary":
            return web.Response(body=b"\x89PNG", content_type="image/png")
        if request.path == "/hop":
            raise web.HTTPFound(f"http://127.0.0.2:{request.url.port}/plain")
        return web.Response(status=404)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    async with loopback_app(app) as base:
        yield base, seen


async def test_searxng_results_and_errors() -> None:
    async with site() as (base, _), aiohttp.ClientSession() as session:
        search = SearxngSearch(session, base)
        results = await search.search("cables")
        assert results[0].url == "https://example.org/a" and results[0].snippet == "about a"
        with pytest.raises(ProviderError, match="HTTP 500"):
            await search.search("boom")
        with pytest.raises(ProviderError, match="not JSON"):
            await search.search("junk")
        with pytest.raises(InvalidInput):
            await search.search("  ")
    async with aiohttp.ClientSession() as session:
        with pytest.raises(ProviderError, match="cannot connect"):
            await SearxngSearch(session, "http://127.0.0.1:9").search("x")


async def test_fetch_html_text_limits_and_types() -> None:
    async with site() as (base, _):
        async with make_session(allow_private=True, timeout_s=1.0) as session:
            fetcher = PageFetcher(session, allow_private=True, max_bytes=50_000)
            page = await fetcher.fetch(f"{base}/page")
            assert page.title == "Cables" and "grapnel" in page.text and "evil" not in page.text
            assert "## Repair" in page.text
            assert (await fetcher.fetch(f"{base}/plain")).text == "just text"
            big = await fetcher.fetch(f"{base}/big")
            assert big.truncated and big.bytes == 50_000
            with pytest.raises(ProviderError, match="timed out"):
                await fetcher.fetch(f"{base}/slow")
            with pytest.raises(ProviderError, match="unsupported content type"):
                await fetcher.fetch(f"{base}/binary")
            with pytest.raises(ProviderError, match="HTTP 404"):
                await fetcher.fetch(f"{base}/missing")
            for url in ["file:///etc/passwd", "ftp://example.org/x", "javascript:alert(1)"]:
                with pytest.raises(InvalidInput, match="only http and https"):
                    await fetcher.fetch(url)


async def test_private_addresses_are_refused_before_connecting() -> None:
    async with site() as (base, seen), make_session(allow_private=False, timeout_s=1.0) as session:
        fetcher = PageFetcher(session)
        port = base.rsplit(":", 1)[1]
        for url in [
            f"{base}/plain",
            f"http://localhost:{port}/plain",
            f"http://[::1]:{port}/plain",
            "http://10.0.0.1/",
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:127.0.0.1]/",
            "http://0.0.0.0/",
        ]:
            with pytest.raises(InvalidInput, match="refusing to fetch"):
                await fetcher.fetch(url)
        assert seen == []  # not one request reached the loopback server


async def test_each_redirect_hop_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """127.0.0.1 plays a public address here; 127.0.0.2 stays private. The redirect must be refused."""
    real = webmod.blocked_address
    monkeypatch.setattr(webmod, "blocked_address", lambda a: None if a == "127.0.0.1" else real(a))
    async with site() as (base, seen), make_session(allow_private=False, timeout_s=1.0) as session:
        with pytest.raises(InvalidInput, match=r"127\.0\.0\.2 is a loopback address"):
            await PageFetcher(session).fetch(f"{base}/hop")
        assert seen == ["/hop"]


async def test_web_tools_are_off_until_configured_and_index_pages(data_dir: Path) -> None:
    async with connect("inproc", "legacy", data_dir) as client:
        for name, args, expected in [
            ("web_search", {"query": "cables"}, "DEEPR_WEB_SEARXNG_URL"),
            ("web_fetch", {"url": "https://example.org/"}, "DEEPR_WEB_FETCH_ENABLED"),
        ]:
            result = await client.call_tool("tool_call", {"name": name, "arguments": args})
            assert result.is_error and expected in text_of(result)
    async with site() as (base, _):
        config = {"web": {"searxng_url": base, "fetch_enabled": True, "allow_private": True}}
        async with connect("inproc", "legacy", data_dir / "2", config=config) as client:
            found = await client.call_tool("web_search", {"query": "cables"})
            assert not found.is_error and found.structured_content["results"][0]["title"] == "A"
            fetched = await client.call_tool("web_fetch", {"url": f"{base}/page", "add_to_corpus": True})
            assert not fetched.is_error and fetched.structured_content["indexed"]["status"] == "added"
            hits = await client.call_tool("corpus_search", {"query": "grapnel"})
            assert hits.structured_content["hits"][0]["source"] == f"{base}/page"
