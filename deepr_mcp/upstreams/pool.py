"""Every configured upstream: one connection and one catalogue each, owned by the server's lifespan.

Nothing connects at start-up: the cached listings are registered (so search works at once) and
the first ``prepare()`` (the first ``tool_search``, ``tool_call`` or full ``tools/list``) starts
one sync per upstream in the background, waiting only for upstreams with no cached listing, and
at most their ``connect_timeout_s``. A ``list_changed`` from an upstream re-syncs it (runs coalesce).
One upstream's failure never reaches another: each has its own session, breaker and sync.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio
import anyio.abc

from deepr_mcp.errors import DeeprError, NotFound
from deepr_mcp.gateway.registry import ToolRegistry
from deepr_mcp.upstreams.catalogue import DENIED, UpstreamCatalogue
from deepr_mcp.upstreams.connection import UpstreamConnection
from deepr_mcp.upstreams.settings import UpstreamSettings

__all__ = ["Upstreams"]

logger = logging.getLogger(__name__)

CLOSE_GRACE_S = 5.0


class Upstreams:
    """The federation: an async context manager; ``prepare`` before search, ``check`` for the CLI."""

    def __init__(self, settings: list[UpstreamSettings], registry: ToolRegistry, state_dir: Path | None) -> None:
        self.settings = settings
        self.registry = registry
        self.state_dir = state_dir
        self.connections: dict[str, UpstreamConnection] = {}
        self.catalogues: dict[str, UpstreamCatalogue] = {}
        self._tg: anyio.abc.TaskGroup | None = None
        self._first: dict[str, anyio.Event] | None = None
        self._syncing: set[str] = set()
        self._dirty: set[str] = set()
        self.on_change: Callable[[], None] | None = None
        """Called after a sync changed the published tools (the root tells connected clients)."""

    async def __aenter__(self) -> Upstreams:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        for upstream in self.settings:
            connection = UpstreamConnection(upstream, self._tg, log_dir=self.state_dir)
            catalogue = UpstreamCatalogue(connection, self.registry, self.state_dir)
            catalogue.load_cache()
            connection.on_tools_changed = lambda name=upstream.name: self._resync_soon(name)
            self.connections[upstream.name] = connection
            self.catalogues[upstream.name] = catalogue
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._tg is not None
        tg = self._tg
        for connection in self.connections.values():
            connection.close()  # owner tasks leave their sessions: subprocesses stopped, HTTP sessions ended
        with anyio.CancelScope(shield=True), anyio.move_on_after(CLOSE_GRACE_S):
            for connection in self.connections.values():
                await connection.left()
        tg.cancel_scope.cancel()  # background syncs, and any owner past its grace
        await tg.__aexit__(None, None, None)

    # -- syncing --------------------------------------------------------------------------------

    async def prepare(self) -> None:
        """The first time: start every upstream's first sync and wait for those with nothing cached."""
        if self._tg is None or not self.connections:
            return
        if self._first is None:
            self._first = {name: anyio.Event() for name in self.connections}
            for name in self.connections:
                self._tg.start_soon(self._first_sync, name)
        for name, catalogue in self.catalogues.items():  # never listed live and its backoff passed: try again
            if not catalogue.synced and self._first[name].is_set() and name not in self._syncing:
                if self.connections[name].may_retry():
                    self._syncing.add(name)  # claimed now: further calls before the task runs start no other
                    self._tg.start_soon(self._sync, name, True)
        waits = [
            (self._first[name], self.connections[name].settings.connect_timeout_s)
            for name, catalogue in self.catalogues.items()
            if not catalogue.published and not self._first[name].is_set()
        ]
        if waits:
            with anyio.move_on_after(max(t for _, t in waits)):
                for event, _ in waits:
                    await event.wait()

    async def _first_sync(self, name: str) -> None:
        try:
            await self._sync(name)
        finally:
            assert self._first is not None
            self._first[name].set()

    async def _sync(self, name: str, claimed: bool = False) -> None:
        """One sync at a time per upstream; a change announced meanwhile runs one more."""
        if name in self._syncing and not claimed:
            self._dirty.add(name)
            return
        self._syncing.add(name)
        try:
            while True:
                self._dirty.discard(name)
                try:
                    published = await self.catalogues[name].sync()
                    logger.info("upstream %s: %d tools published", name, len(published))
                    if self.catalogues[name].changed and self.on_change is not None:
                        self.on_change()
                except DeeprError as exc:
                    logger.warning("upstream %s: listing failed: %s", name, exc.message)
                if name not in self._dirty:
                    return
        finally:
            self._syncing.discard(name)

    def _resync_soon(self, name: str) -> None:
        if self._tg is not None and self.connections[name].state != "closed":
            self._tg.start_soon(self._sync, name)

    # -- what cannot answer, for the gateway's messages ---------------------------------------------

    def unavailable(self) -> list[dict[str, str]]:
        """Each upstream that is down or whose circuit is open, with its state in words."""
        return [
            {"upstream": name, "state": connection.describe()}
            for name, connection in self.connections.items()
            if not connection.available()
        ]

    def why_missing(self, name: str) -> str | None:
        """Why no tool ``name`` is published, when an upstream explains it: the upstream whose prefix it
        carries is down (its tools are not known) or left that tool out; ``None`` when none does."""
        for upstream, connection in self.connections.items():
            catalogue = self.catalogues[upstream]
            prefix = connection.settings.tool_prefix
            if not name.startswith(prefix):
                continue
            own = name[len(prefix) :]
            if own in catalogue.skipped and catalogue.skipped[own] != DENIED:  # a denied tool stays unknown
                return f"upstream {upstream!r} has a tool {own!r}, left out: {catalogue.skipped[own]}"
            if own in catalogue.over_cap:
                cap = catalogue.settings.max_tools
                return f"upstream {upstream!r} has a tool {own!r}, left out past its max_tools ({cap})"
            if prefix and not (connection.available() and catalogue.synced):
                where = f"{connection.kind} {connection.settings.where()}"
                known = "its last listing does not name it" if catalogue.published else "its tools are not known yet"
                return (
                    f"it looks like a tool of upstream {upstream!r} ({where}), which is not answering: "
                    f"{connection.describe()}; {known}. Try again once it answers (upstreams check {upstream})."
                )
        return None

    # -- for the CLI and the research sources -----------------------------------------------------

    def connection(self, name: str) -> UpstreamConnection:
        if name not in self.connections:
            known = ", ".join(sorted(self.connections)) or "none configured"
            raise NotFound(f"no upstream named {name!r}; configured: {known}")
        return self.connections[name]

    async def check(self, name: str) -> dict[str, Any]:
        """Connect and list now; what a person needs to see whether the upstream works."""
        connection = self.connection(name)
        catalogue = self.catalogues[name]
        report: dict[str, Any] = {"name": name, "endpoint": connection.settings.where()}
        try:
            published = await catalogue.sync()
        except DeeprError as exc:
            report.update(transport=connection.kind, ok=False, state=connection.describe(), error=exc.message)
            return report
        info = connection.server_info
        report.update(
            transport=connection.kind,
            ok=True,
            state=connection.describe(),
            server=f"{info.name} {info.version}" if info is not None else None,
            tools=len(published),
            published=published,
            skipped=catalogue.skipped,
            over_cap=catalogue.over_cap_summary(),
        )
        return report
