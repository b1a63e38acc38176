"""One upstream's shared session: opened lazily, kept, reconnected with backoff, bounded and cancelled.

The SDK ``Client`` is an async context manager whose task group must be left by the task that
entered it, so each session lives in an *owner task* in the pool's task group; request
handlers on any task use it. Everything the gateway needs is here: ``list_tools`` (one request
shared by concurrent callers, cached until the upstream sends ``notifications/tools/list_changed``)
and ``call_tool`` (at most ``max_concurrency`` in flight, each bounded by ``timeout_s``; a call
that runs out of time is cancelled upstream with ``notifications/cancelled``, which the SDK
sends when the waiting caller is cancelled, and it says it timed out: ``CircuitBreaker.timed_out``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

import anyio
import anyio.abc
import mcp_types as types
from mcp.client import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND

from deepr_mcp import __version__
from deepr_mcp.errors import DeeprError
from deepr_mcp.upstreams.breaker import CircuitBreaker
from deepr_mcp.upstreams.errors import UpstreamError, UpstreamTimeout, UpstreamUnavailable, explain
from deepr_mcp.upstreams.settings import UpstreamSettings
from deepr_mcp.upstreams.stdio import OVERSIZED
from deepr_mcp.upstreams.transport import StderrLog, open_transport

__all__ = ["ConnectionState", "UpstreamConnection"]

logger = logging.getLogger(__name__)

ConnectionState = Literal["idle", "connecting", "ready", "down", "closed"]
BACKOFF_FIRST_S = 1.0
BACKOFF_MAX_S = 60.0
MAX_LIST_PAGES = 100
T = TypeVar("T")


class UpstreamConnection:
    """The one session to one upstream, shared by every caller of its tools."""

    def __init__(
        self,
        settings: UpstreamSettings,
        task_group: anyio.abc.TaskGroup,
        *,
        log_dir: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.name = settings.name
        self.state: ConnectionState = "idle"
        self.last_error = ""
        self.breaker = CircuitBreaker(settings.failure_threshold, settings.breaker_reset_s, clock)
        self.on_tools_changed: Callable[[], None] | None = None
        """Called when the upstream says its tool list changed (the catalogue re-syncs)."""
        self.server_info: types.Implementation | None = None
        self.kind = settings.kind
        """The transport in use: ``sse`` once an ``auto`` url fell back to it."""
        self._tg = task_group
        self._clock = clock
        self._stderr = StderrLog(log_dir, settings.name)
        self._client: Client | None = None
        self._stop: anyio.Event | None = None
        self._connect_lock = anyio.Lock()
        self._failed_connects = 0
        self._retry_at = 0.0
        self._slots = anyio.Semaphore(settings.max_concurrency)
        self.owners = 0
        """Owner tasks still inside a session (shutdown waits for them to leave)."""
        self._no_owner = anyio.Event()
        self._no_owner.set()
        self._tools: list[types.Tool] | None = None
        self._tools_epoch = 0
        self._listing: tuple[anyio.Event, list[Any]] | None = None

    # -- state, for errors and `upstreams check` -------------------------------------------

    def describe(self) -> str:
        """The state in words: ``ready``, ``down (why; next attempt in N s)``, ``circuit open (...)``."""
        if self.breaker.state == "open":
            return f"circuit open ({self.breaker.refusal() or 'half-open'})"
        if self.state == "down":
            wait = max(0.0, self._retry_at - self._clock())
            return f"down ({self.last_error}; next attempt in {wait:.0f} s)"
        if self.state == "connecting" and self.last_error:
            return f"connecting (last: {self.last_error})"
        return self.state

    def available(self) -> bool:
        """Whether the upstream is answering, as far as is known: not down, circuit not open."""
        return self.state != "down" and self.breaker.state != "open"

    def may_retry(self) -> bool:
        """Whether a down upstream's backoff has passed, so a new connection may be tried."""
        return self.state == "down" and self._retry_at <= self._clock()

    def _unavailable(self, why: str) -> UpstreamUnavailable:
        where = f"{self.kind} {self.settings.where()}"
        return UpstreamUnavailable(f"upstream {self.name!r} ({where}) is unavailable: {why}")

    # -- the session -------------------------------------------------------------------------

    async def client(self) -> Client:
        """The live session, opening it first if needed; one connect at a time, others wait for it."""
        if self._client is not None:
            return self._client
        if self.state == "closed":
            raise self._unavailable("the server is shutting down")
        async with self._connect_lock:
            if self._client is not None:
                return self._client
            wait = self._retry_at - self._clock()
            if self.state == "down" and wait > 0:
                raise self._unavailable(f"down ({self.last_error}); next connection attempt in {wait:.0f} s")
            return await self._connect()

    async def _connect(self) -> Client:
        self.state = "connecting"
        offset = self._stderr.offset()
        opened = await self._open(self.kind)
        if isinstance(opened, BaseException) and self.kind == "http" and self.settings.sse_fallback:
            if isinstance(opened, MCPError) and opened.error.code in (METHOD_NOT_FOUND, INTERNAL_ERROR):
                logger.info("upstream %s: streamable HTTP refused (%s); trying legacy SSE", self.name, explain(opened))
                first = opened
                opened = await self._open("sse")
                if isinstance(opened, BaseException):
                    why = f"streamable HTTP: {explain(first)}; legacy SSE: {explain(opened)}"
                    raise self._connect_failed(why)
                self.kind = "sse"
        if not isinstance(opened, tuple):
            said = self._stderr.tail_since(offset)
            why = explain(opened) if opened is not None else self._no_answer()
            raise self._connect_failed(why + (f"; its stderr: {said}" if said else ""))
        client, stop = opened
        self._client, self._stop = client, stop
        self.server_info = client.server_info
        self.state = "ready"
        self._failed_connects = 0
        self._tools = None  # a new session may list other tools (no epoch bump: the fetch that connected is fresh)
        return client

    def _no_answer(self) -> str:
        return f"no answer to initialize within {self.settings.connect_timeout_s:g} s"

    async def _open(self, kind: str) -> tuple[Client, anyio.Event] | BaseException | None:
        """One attempt: the session and its stop event, the exception it failed with, or ``None`` on timeout."""
        ready = anyio.Event()
        stop = anyio.Event()
        scope = anyio.CancelScope()
        box: dict[str, Any] = {}

        async def owner() -> None:
            self.owners += 1
            if self._no_owner.is_set():
                self._no_owner = anyio.Event()
            try:
                await session()
            finally:
                self.owners -= 1
                if self.owners == 0:
                    self._no_owner.set()

        async def session() -> None:
            with scope:
                try:
                    async with Client(
                        open_transport(self.settings, self._stderr.open(), kind),
                        mode="legacy",
                        cache=None,
                        message_handler=self._on_message,
                        client_info=types.Implementation(name="deepr-mcp", version=__version__),
                    ) as client:
                        box["client"] = client
                        ready.set()
                        await stop.wait()
                except Exception as exc:  # boundary: any transport failure becomes this upstream's state
                    box.setdefault("error", exc)
            ready.set()
            if box.get("client") is not None and self._client is box["client"]:
                self._lost("the session ended")

        self._tg.start_soon(owner, name=f"upstream {self.name}")
        try:
            with anyio.move_on_after(self.settings.connect_timeout_s):
                await ready.wait()
        except BaseException:  # the caller was cancelled: no orphan session (or process) is left behind
            scope.cancel()
            raise
        if box.get("client") is not None:
            return box["client"], stop
        scope.cancel()
        error = box.get("error")
        while isinstance(error, BaseExceptionGroup) and error.exceptions:
            error = error.exceptions[0]
        return error

    def _connect_failed(self, why: str) -> UpstreamUnavailable:
        self._failed_connects += 1
        delay = min(BACKOFF_MAX_S, BACKOFF_FIRST_S * 2 ** (self._failed_connects - 1))
        self._retry_at = self._clock() + delay
        self.state = "down"
        self.last_error = f"connect failed: {why}"
        self.breaker.failure(self.last_error)
        logger.warning("upstream %s: %s (next attempt in %.0f s)", self.name, self.last_error, delay)
        return self._unavailable(self.last_error)

    def _lost(self, why: str) -> None:
        """Drop the session (the next use reconnects at once: losing a working session is no connect failure)."""
        if self._stop is not None:
            self._stop.set()
        self._client, self._stop = None, None
        if self.state != "closed":
            self.state = "down"
            self.last_error = why
            self._retry_at = 0.0
        self._invalidate_tools()

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._invalidate_tools()
            if self.on_tools_changed is not None:
                self.on_tools_changed()
        elif isinstance(message, Exception):
            logger.warning("upstream %s sent something unreadable: %s", self.name, explain(message))

    async def left(self) -> None:
        """Wait until no owner task is inside a session (after ``close``)."""
        await self._no_owner.wait()

    def close(self) -> None:
        self.state = "closed"
        if self._stop is not None:
            self._stop.set()
        self._client, self._stop = None, None

    # -- tools/list, coalesced and cached ------------------------------------------------------

    def _invalidate_tools(self) -> None:
        self._tools = None
        self._tools_epoch += 1

    @property
    def cached_tools(self) -> list[types.Tool] | None:
        return self._tools

    async def list_tools(self) -> list[types.Tool]:
        """Every tool of the upstream (all pages); concurrent callers share one request."""
        if self._tools is not None:
            return self._tools
        if self._listing is not None:
            done, box = self._listing
            await done.wait()
            if isinstance(box[0], BaseException):
                raise box[0]
            return box[0]
        done, box = anyio.Event(), [self._unavailable("the listing was interrupted")]
        self._listing = (done, box)
        epoch = self._tools_epoch
        try:
            tools = await self._fetch_tools()
            if epoch == self._tools_epoch:
                self._tools = tools
            box[0] = tools
            return tools
        except DeeprError as exc:
            box[0] = exc
            raise
        finally:
            self._listing = None
            done.set()

    async def _fetch_tools(self) -> list[types.Tool]:
        refusal = self.breaker.refusal()
        if refusal is not None:
            raise self._unavailable(refusal)
        try:
            tools = await self._retrying(self._list_pages, retry_safe=True)
        except TimeoutError:
            raise self._call_failed(f"tools/list timed out after {self.settings.timeout_s:g} s") from None
        except MCPError as exc:
            raise self._mcp_failure("tools/list", exc) from None
        self.breaker.success()
        return tools

    async def _list_pages(self, client: Client) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(MAX_LIST_PAGES):
            page = await client.session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def _retrying(self, request: Callable[[Client], Awaitable[T]], *, retry_safe: bool) -> T:
        """``request`` on the session; if an HTTP upstream no longer knows the session (it restarted, or
        expired it), the session is dropped and, when a second attempt cannot do harm, tried once more."""
        client = await self.client()  # connecting is bounded by connect_timeout_s, not by the call's timeout
        try:
            with anyio.fail_after(self.settings.timeout_s):
                return await request(client)
        except MCPError as exc:
            if not self._session_gone(exc):
                raise
            self._lost("the server no longer knew this session (it restarted or expired it)")
            if not (retry_safe or exc.error.code == INVALID_REQUEST):  # 404 "Session terminated": not run
                raise
        client = await self.client()
        with anyio.fail_after(self.settings.timeout_s):
            return await request(client)

    def _session_gone(self, exc: MCPError) -> bool:
        """The SDK's spelling of an HTTP 4xx/5xx to a request on a live HTTP session."""
        error = exc.error
        if self.kind == "stdio":
            return False
        return (error.code, error.message) in (
            (INVALID_REQUEST, "Session terminated"),
            (INTERNAL_ERROR, "Server returned an error response"),
        )

    # -- tools/call ---------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict[str, Any], retry_safe: bool = False) -> types.CallToolResult:
        """Run the upstream's tool ``name``; its result comes back unchanged.

        ``retry_safe`` (the tool says it is read-only or idempotent): a call an HTTP upstream refused
        because it lost the session is sent again on a new one.
        """
        refusal = self.breaker.refusal()
        if refusal is not None:
            raise self._unavailable(refusal)
        try:
            with anyio.fail_after(self.settings.timeout_s):
                await self._slots.acquire()
        except TimeoutError:
            n = self.settings.max_concurrency
            raise self._unavailable(
                f"{name} waited {self.settings.timeout_s:g} s for one of its {n} call slots"
            ) from None
        started = self.breaker.now()
        try:
            result = await self._retrying(lambda c: c.call_tool(name, arguments), retry_safe=retry_safe)
        except TimeoutError:
            raise self._timed_out(name, started) from None
        except MCPError as exc:
            raise self._mcp_failure(name, exc) from None
        except RuntimeError as exc:  # the SDK's output-schema check of the upstream's own result
            self.breaker.success()
            raise UpstreamError(f"upstream {self.name!r} tool {name}: {exc}") from None
        finally:
            self._slots.release()
        self.breaker.success()
        return result

    def _timed_out(self, name: str, started: float) -> UpstreamTimeout:
        where = f"{self.kind} {self.settings.where()}"
        why = f"{name} timed out: no answer within timeout_s ({self.settings.timeout_s:g} s); cancelled upstream"
        if self.breaker.timed_out(why, started):
            note = f"no other call answered meanwhile, so it counts towards the circuit breaker ({self.breaker})"
        else:
            note = "other calls to it answered meanwhile, so it is up and this call was only slow"
        return UpstreamTimeout(f"upstream {self.name!r} ({where}): {why}; {note}. Ask for less or raise timeout_s.")

    def _call_failed(self, why: str) -> UpstreamUnavailable:
        self.breaker.failure(why)
        return self._unavailable(why)

    def _mcp_failure(self, what: str, exc: MCPError) -> DeeprError:
        if exc.error.code == CONNECTION_CLOSED:
            self._lost(f"the connection closed during {what}")
            return self._call_failed(f"the connection closed during {what}; it is reopened on the next call")
        if self._session_gone(exc):
            return self._call_failed(
                f"{what}: the server refused the request at the HTTP level; a new session is opened"
            )
        if exc.error.code == OVERSIZED:  # the upstream answered, too much to read
            self.breaker.success()
            return UpstreamError(f"upstream {self.name!r} tool {what}: {exc.error.message}; ask for less")
        if not -32099 <= exc.error.code <= -32000:  # an answer, not the SDK's transport errors
            self.breaker.success()
            return UpstreamError(
                f"upstream {self.name!r} answered {what} with error {exc.error.code}: {exc.error.message}"
            )
        return self._call_failed(f"{what}: {exc.error.message}")
