"""An httpx transport that reads an HTTP upstream's answers with a byte limit, decompressed size counted.

The SDK's streamable HTTP client reads a JSON answer whole (``response.aread()``) and lets httpx
inflate ``Content-Encoding: gzip`` as it goes: a 50 MB body, or a 200 KB gzip bomb that inflates
to 200 MB, was read into memory before anything refused it. This transport sits under the SDK's
``httpx2.AsyncClient``: it inflates gzip/deflate itself, at most ``CHUNK`` bytes of output per step,
and counts what it hands up; past ``limit`` it stops reading and raises ``BodyTooLarge``, which the
SDK turns into an error for the request that answer belonged to. For an event stream (SSE) the
count is per event (bytes since the last blank line), so a long-lived stream is never cut for its
age, only for one event that is too big. Encodings it cannot inflate are refused, not passed on.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2

__all__ = ["BodyTooLarge", "LimitedTransport", "UnreadableBody"]

CHUNK = 64 * 1024
_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")
"""A blank line: where one server-sent event ends."""


class BodyTooLarge(httpx2.StreamError):
    """An upstream's answer (or one of its events) passed the byte limit; the rest was not read."""


class UnreadableBody(httpx2.StreamError):
    """An upstream's answer in an encoding deepr does not inflate, or corrupt compressed data."""


class _Inflate:
    """One ``Content-Encoding`` layer (gzip or deflate), inflated at most ``CHUNK`` bytes per step."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._raw_fallback = encoding == "deflate"  # "deflate" is zlib-wrapped, or raw from some servers
        self._d = zlib.decompressobj(16 + zlib.MAX_WBITS if encoding in ("gzip", "x-gzip") else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        while True:
            try:
                out = self._d.decompress(data, CHUNK)
            except zlib.error as exc:
                if not self._raw_fallback:
                    raise UnreadableBody(f"the upstream's {self.encoding} body is corrupt: {exc}") from None
                self._raw_fallback = False
                self._d = zlib.decompressobj(-zlib.MAX_WBITS)
                continue
            self._raw_fallback = False
            data = self._d.unconsumed_tail
            if out:
                yield out
            elif not data:
                return

    def finish(self) -> Iterator[bytes]:
        yield from self.feed(b"")


class _LimitedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, encodings: list[str], limit: int, per_event: bool, what: str) -> None:
        self._inner = inner
        self._layers = [_Inflate(e) for e in reversed(encodings)]  # the last one applied comes off first
        self._limit = limit
        self._per_event = per_event
        self._what = what
        self._count = 0
        self._tail = b""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            for out in self._inflate(chunk, 0):
                self._counted(out)
                yield out
        for depth in range(len(self._layers)):
            for rest in self._layers[depth].finish():
                for out in self._inflate(rest, depth + 1):
                    self._counted(out)
                    yield out

    def _inflate(self, data: bytes, depth: int) -> Iterator[bytes]:
        if depth == len(self._layers):
            if data:
                yield data
            return
        for out in self._layers[depth].feed(data):
            yield from self._inflate(out, depth + 1)

    def _counted(self, out: bytes) -> None:
        if not self._per_event:
            self._count += len(out)
            self._check(self._count)
            return
        # ``_tail``: the last bytes of the event in progress (already counted), kept to find a blank line
        # split across chunks. Every event that ends in this chunk is checked, then the one still open.
        seen = self._tail + out
        count = self._count - len(self._tail)
        start = 0
        for end in _EVENT_END.finditer(seen):
            self._check(count + end.start() - start)
            count, start = 0, end.end()
        self._count = count + len(seen) - start
        self._check(self._count)
        self._tail = seen[max(start, len(seen) - 3) :]

    def _check(self, count: int) -> None:
        if count > self._limit:
            unit = "one event of the upstream's event stream" if self._per_event else "the upstream's answer"
            raise BodyTooLarge(
                f"{unit} to {self._what} passed {self._limit:,} bytes (decompressed); deepr stopped reading it"
            )

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Refused(httpx2.AsyncByteStream):
    """A body not read at all: iterating it raises ``UnreadableBody`` with the reason."""

    def __init__(self, inner: Any, reason: str) -> None:
        self._inner = inner
        self._reason = reason

    async def __aiter__(self) -> AsyncIterator[bytes]:
        raise UnreadableBody(self._reason)
        yield b""  # pragma: no cover - makes this an async generator

    async def aclose(self) -> None:
        await self._inner.aclose()


class LimitedTransport(httpx2.AsyncBaseTransport):
    """Wraps a transport so every response body is inflated and counted here, under ``limit`` bytes."""

    def __init__(self, limit: int, inner: httpx2.AsyncBaseTransport | None = None) -> None:
        self.limit = limit
        self._inner = inner or httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        request.headers["Accept-Encoding"] = "gzip, deflate"
        response = await self._inner.handle_async_request(request)
        encodings = [e.strip().lower() for e in response.headers.get("content-encoding", "").split(",") if e.strip()]
        encodings = [e for e in encodings if e != "identity"]
        unknown = [e for e in encodings if e not in ("gzip", "x-gzip", "deflate")]
        headers = [(k, v) for k, v in response.headers.raw if k.lower() not in (b"content-encoding", b"content-length")]
        per_event = response.headers.get("content-type", "").lower().startswith("text/event-stream")
        what = f"{request.method} {request.url.copy_with(query=None)}"
        stream: httpx2.AsyncByteStream
        if unknown or len(encodings) > 2:
            said = response.headers.get("content-encoding", "")
            stream = _Refused(
                response.stream,
                f"the upstream answered {what} with Content-Encoding {said[:80]!r}; deepr reads identity, gzip "
                "or deflate (at most two layers)",
            )
        else:
            stream = _LimitedStream(response.stream, encodings, self.limit, per_event, what)
        return httpx2.Response(
            response.status_code, headers=headers, stream=stream, request=request, extensions=response.extensions
        )

    async def aclose(self) -> None:
        await self._inner.aclose()
