"""Web search (SearXNG's JSON API) and page fetching, off unless configured.

Fetching is the dangerous part: a URL from a model or a search result could point at the
machine's own services. Only http/https are fetched; every address a host resolves to is
checked (loopback, private, link-local, multicast, reserved and unspecified are refused
unless allowed), at connect time through the connector's resolver, so a DNS answer that
changes between a check and the connection cannot slip through; redirects are followed by
hand, one checked hop at a time. Bodies are streamed and cut at a size limit.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urljoin, urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

from deepr_mcp.errors import InvalidInput, ProviderError
from deepr_mcp.research.corpus.ingest import html_sections

MAX_REDIRECTS = 5


@dataclass(frozen=True, slots=True)
class WebResult:
    url: str
    title: str
    snippet: str
    engine: str


@dataclass(frozen=True, slots=True)
class FetchedPage:
    url: str
    final_url: str
    title: str
    text: str
    content_type: str
    bytes: int
    truncated: bool


class WebSearch(Protocol):
    async def search(self, query: str, limit: int = 5) -> list[WebResult]: ...


def blocked_address(address: str) -> str | None:
    """Why an IP may not be contacted, or ``None`` if it is a public address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for attribute in ("is_loopback", "is_private", "is_link_local", "is_multicast", "is_reserved", "is_unspecified"):
        if getattr(ip, attribute):
            return attribute.removeprefix("is_").replace("_", "-")
    return None


class PublicOnlyResolver(AbstractResolver):
    """Resolves like the default resolver, then drops every non-public address."""

    def __init__(self) -> None:
        self._inner = DefaultResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        allowed = [r for r in results if blocked_address(r["host"]) is None]
        if not allowed:
            reasons = {blocked_address(r["host"]) for r in results}
            raise OSError(f"{host} resolves only to non-public addresses ({', '.join(sorted(map(str, reasons)))})")
        return allowed

    async def close(self) -> None:
        await self._inner.close()


def check_url(url: str, *, allow_private: bool) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise InvalidInput(f"only http and https URLs are fetched, not {parts.scheme or 'a relative URL'!r}: {url}")
    if not parts.hostname:
        raise InvalidInput(f"URL has no host: {url}")
    if allow_private:
        return
    host = parts.hostname
    if host == "localhost" or host.endswith(".localhost"):
        raise InvalidInput(f"refusing to fetch {url}: localhost is not a public address")
    try:
        reason = blocked_address(host)
    except ValueError:
        return  # a name: checked at connect time by PublicOnlyResolver
    if reason is not None:
        raise InvalidInput(f"refusing to fetch {url}: {host} is a {reason} address")


def make_session(*, allow_private: bool, timeout_s: float) -> aiohttp.ClientSession:
    """A session for untrusted URLs: public addresses only unless ``allow_private``."""
    connector = aiohttp.TCPConnector(resolver=None if allow_private else PublicOnlyResolver(), limit=10)
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=timeout_s))


class PageFetcher:
    def __init__(
        self,
        session: aiohttp.ClientSession,
        *,
        max_bytes: int = 2_000_000,
        allow_private: bool = False,
        user_agent: str = "deepr-mcp/0.1 (+research)",
    ) -> None:
        self.session = session
        self.max_bytes = max_bytes
        self.allow_private = allow_private
        self.headers = {"User-Agent": user_agent, "Accept": "text/html, text/plain, text/markdown;q=0.9"}

    async def fetch(self, url: str) -> FetchedPage:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            check_url(current, allow_private=self.allow_private)
            try:
                async with self.session.get(current, headers=self.headers, allow_redirects=False) as resp:
                    if resp.status in (301, 302, 303, 307, 308) and "Location" in resp.headers:
                        current = urljoin(current, resp.headers["Location"])
                        continue
                    if resp.status >= 400:
                        raise ProviderError("fetch", f"{current}: HTTP {resp.status}", status=resp.status)
                    content_type = resp.headers.get("Content-Type", "").split(";")[0].strip().lower()
                    if content_type not in ("text/html", "application/xhtml+xml", "text/plain", "text/markdown"):
                        raise ProviderError("fetch", f"{current}: unsupported content type {content_type or 'none'!r}")
                    body, truncated = await self._read_limited(resp)
                    return self._page(url, current, content_type, body, truncated, resp.charset or "utf-8")
            except TimeoutError:  # before ClientConnectionError: aiohttp's timeout errors are both
                raise ProviderError("fetch", f"{current}: timed out", retryable=True) from None
            except (aiohttp.ClientConnectionError, OSError) as exc:
                raise ProviderError("fetch", f"{current}: cannot connect ({exc})", retryable=True) from None
        raise ProviderError("fetch", f"{url}: more than {MAX_REDIRECTS} redirects")

    async def _read_limited(self, resp: aiohttp.ClientResponse) -> tuple[bytes, bool]:
        chunks, size = [], 0
        async for chunk in resp.content.iter_chunked(65536):
            room = self.max_bytes - size
            chunks.append(chunk[:room])
            size += min(len(chunk), room)
            if len(chunk) > room or size >= self.max_bytes:
                return b"".join(chunks), True
        return b"".join(chunks), False

    @staticmethod
    def _page(url: str, final: str, content_type: str, body: bytes, truncated: bool, charset: str) -> FetchedPage:
        text = body.decode(charset, errors="replace")
        title = ""
        if content_type in ("text/html", "application/xhtml+xml"):
            lower = text.lower()
            start, end = lower.find("<title>"), lower.find("</title>")
            if 0 <= start < end:
                title = " ".join(text[start + 7 : end].split())
            sections = html_sections(text, skip_navigation=False)
            text = "\n\n".join((f"## {s.location}\n\n" if s.location else "") + s.text for s in sections)
        return FetchedPage(url, final, title, text, content_type, len(body), truncated)


class SearxngSearch:
    """SearXNG's JSON API (``/search?q=…&format=json``); the instance must enable the json format."""

    def __init__(self, session: aiohttp.ClientSession, base_url: str, *, timeout_s: float = 15.0) -> None:
        self.session = session
        self.url = base_url.rstrip("/") + "/search"
        self.timeout = aiohttp.ClientTimeout(total=timeout_s)

    async def search(self, query: str, limit: int = 5) -> list[WebResult]:
        if not query.strip():
            raise InvalidInput("the web search query is empty")
        try:
            async with self.session.get(self.url, params={"q": query, "format": "json"}, timeout=self.timeout) as resp:
                if resp.status != 200:
                    raise ProviderError(
                        "searxng", f"HTTP {resp.status} (is the json format enabled?)", status=resp.status
                    )
                body: Any = await resp.json(content_type=None)
        except aiohttp.ContentTypeError:
            raise ProviderError("searxng", "malformed response: not JSON") from None
        except ValueError:
            raise ProviderError("searxng", "malformed response: not JSON") from None
        except TimeoutError:
            raise ProviderError("searxng", "timed out", retryable=True) from None
        except (aiohttp.ClientConnectionError, OSError) as exc:
            raise ProviderError("searxng", f"cannot connect ({exc})", retryable=True) from None
        results = body.get("results") if isinstance(body, dict) else None
        if not isinstance(results, list):
            raise ProviderError("searxng", "malformed response: no results list")
        out = []
        for item in results[:limit]:
            if isinstance(item, dict) and isinstance(item.get("url"), str):
                out.append(
                    WebResult(
                        url=item["url"],
                        title=str(item.get("title") or ""),
                        snippet=str(item.get("content") or ""),
                        engine=str(item.get("engine") or ""),
                    )
                )
        return out
