"""The subscription bus of several replicas: the SDK's ``SubscriptionBus`` over one Redis stream.

``publish`` hands the event to this process's listeners at once (the Notifier, listen streams,
the campaign feed's waiters: exactly what ``InMemorySubscriptionBus`` does, so a replica's own
subscribers pay no round trip) and queues it for the other replicas. A sender task writes what
is queued as one ``XADD`` entry (events queued while the previous write was in flight go out
together, duplicates folded: every event is a level trigger, so this is the same coalescing the
Notifier does per subscriber). A reader task follows the stream with ``XREAD BLOCK`` from the
last id it saw and hands other replicas' events to the local listeners.

Why a stream, not pub/sub: a reader whose connection drops resumes from its last id and misses
nothing; after an engine restart (stream gone) new ids are larger than the last one seen, so it
picks up the new entries. While the engine is down, queued events wait (folded, bounded) and go
out once it is back; local delivery never waits for it. The stream is trimmed to about
``max_len`` entries.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable
from types import TracebackType

import anyio
import redis.asyncio as aioredis
from anyio.abc import TaskGroup
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
)

from deepr_mcp.errors import DeeprError
from deepr_mcp.redis.client import call

logger = logging.getLogger(__name__)

_KINDS: dict[str, ServerEvent] = {"t": ToolsListChanged(), "p": PromptsListChanged(), "l": ResourcesListChanged()}
_CODES = {type(event): code for code, event in _KINDS.items()}
MAX_QUEUED = 10_000
"""Distinct events kept while the engine is down; past this the oldest are dropped (and logged)."""


def encode(events: list[ServerEvent]) -> str:
    return json.dumps([["u", e.uri] if isinstance(e, ResourceUpdated) else [_CODES[type(e)]] for e in events])


def decode(payload: str) -> list[ServerEvent]:
    """Events from another replica; anything malformed is skipped, never raised into the reader."""
    events: list[ServerEvent] = []
    try:
        items = json.loads(payload)
    except ValueError:
        return events
    for item in items if isinstance(items, list) else ():
        if isinstance(item, list) and item[:1] == ["u"] and len(item) == 2 and isinstance(item[1], str):
            events.append(ResourceUpdated(uri=item[1]))
        elif isinstance(item, list) and len(item) == 1 and item[0] in _KINDS:
            events.append(_KINDS[item[0]])
    return events


class RedisSubscriptionBus:
    """Entered by the composition root; ``publish``/``subscribe`` as the SDK's bus Protocol."""

    def __init__(
        self, client: aioredis.Redis, *, url: str, prefix: str = "deepr:", max_len: int = 10_000, block_ms: int = 1000
    ) -> None:
        self._redis = client
        self._url = url
        self._key = f"{prefix}events"
        self._max_len = max_len
        self._block_ms = block_ms
        self._origin = secrets.token_hex(8)
        self._local = InMemorySubscriptionBus()
        self._queued: dict[ServerEvent, None] = {}
        self._wake = anyio.Event()
        self._tg: TaskGroup | None = None
        self.sent = 0
        self.received = 0
        """Entries written and other replicas' events delivered (health figures for tests)."""
        self.reading = anyio.Event()
        """Set once the reader knows where the stream ends: from then on no other replica's event is missed."""

    async def __aenter__(self) -> RedisSubscriptionBus:
        last = await self._stream_end()
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._tg.start_soon(self._send_loop)
        self._tg.start_soon(self._read_loop, last)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._tg is not None
        with anyio.move_on_after(2, shield=True):  # let what is queued go out, briefly
            try:
                while self._queued:
                    await self._flush()
            except DeeprError as exc:
                logger.warning("shared bus: %d events not sent at shutdown: %s", len(self._queued), exc.message)
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(None, None, None)

    # -- the Protocol ------------------------------------------------------------------------

    async def publish(self, event: ServerEvent) -> None:
        self._queued.pop(event, None)
        self._queued[event] = None  # a re-published event moves to the end: folded, order kept
        if len(self._queued) > MAX_QUEUED:
            dropped = next(iter(self._queued))
            del self._queued[dropped]
            logger.warning("shared bus backlog full while the store is down; dropped %s", dropped)
        self._wake.set()
        await self._local.publish(event)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        return self._local.subscribe(listener)

    # -- the tasks ---------------------------------------------------------------------------

    async def _stream_end(self) -> str:
        newest = await call(self._url, lambda: self._redis.xrevrange(self._key, count=1))
        return newest[0][0] if newest else "0-0"

    async def _flush(self) -> None:
        """Write what is queued as one entry; on failure it goes back in front of what came meanwhile."""
        batch, self._queued = self._queued, {}
        fields = {"o": self._origin, "e": encode(list(batch))}
        try:
            await call(self._url, lambda: self._redis.xadd(self._key, fields, maxlen=self._max_len, approximate=True))
        except BaseException:
            self._queued = {**batch, **self._queued}
            raise
        self.sent += 1

    async def _send_loop(self) -> None:
        delay = 0.05
        while True:
            await self._wake.wait()
            self._wake = anyio.Event()
            while self._queued:
                try:
                    await self._flush()
                    delay = 0.05
                except DeeprError as exc:
                    logger.warning("shared bus: %s; retrying in %.1fs", exc.message, delay)
                    await anyio.sleep(delay)
                    delay = min(delay * 2, 2.0)

    async def _read_loop(self, last: str) -> None:
        self.reading.set()
        delay = 0.05
        while True:
            try:
                reply = await call(
                    self._url, lambda at=last: self._redis.xread({self._key: at}, count=500, block=self._block_ms)
                )
                delay = 0.05
            except DeeprError as exc:
                logger.warning("shared bus reader: %s; retrying in %.1fs", exc.message, delay)
                await anyio.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            for _stream, entries in reply or ():
                for entry_id, fields in entries:
                    last = entry_id
                    if fields.get("o") == self._origin:
                        continue
                    for event in decode(fields.get("e", "")):
                        self.received += 1
                        await self._local.publish(event)
