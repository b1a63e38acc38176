"""Fan-out of "this resource changed" to every subscriber, in both protocol eras.

Publishing never awaits a client: it marks the URI in each subscriber's pending set (updates
to one URI coalesce, since ``resources/updated`` only means "re-read me") and puts the
subscriber on a FIFO of subscribers with something to send, once. A small pool of writer tasks
drains that FIFO, one send at a time each. So delivery is as fast as a sequential loop (sends
start at once, in publish order, with no task per update or per session) and a burst of updates
costs each subscriber one notification.

A stalled client never delays the others: a watchdog marks a writer whose send has been in flight
for ``stuck_after_s`` as stuck and starts a spare, so ``writers`` writers always serve the rest;
past ``send_timeout_s`` the send is cancelled and the subscriber dropped. Sends carry no cancel
scope of their own (it was half a writer's CPU per notification). 2026-07-28 clients get the
same events through the SDK's ``ListenHandler``.

Each update is built and serialised once: ``mark`` makes one ``Update`` per URI per publish,
shared by every subscriber it reaches; the transport makes its wire forms (the JSON-RPC
notification, an SSE frame) once, on the first send that needs each, and keeps them on it
(``transports/push.py``), so this module knows no MCP wire types. Its ``_meta`` is the same for
every subscriber: the subscriber count and publish time are taken at publish, not per send.

It is pure fan-out: it learns what changed from the subscription bus (``jobs/feed.py``
announces there) and knows nothing of campaigns; waiters follow the feed, not the Notifier.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

import anyio
from anyio.abc import TaskGroup
from mcp.server.subscriptions import ResourceUpdated, ServerEvent, SubscriptionBus

from deepr_mcp.errors import InvalidInput, QuotaExceeded

logger = logging.getLogger(__name__)

META_COUNT = "deepr/subscriberCount"
META_AT = "deepr/publishedAt"
SLICE_S = 0.005
"""A writer yields to the event loop after sending this long: a send that completes without
waiting (a socket write) never yields by itself, and 1,000 of them would hold the loop ~50 ms."""


class Update:
    """One publish of one URI, shared by every subscriber it reaches (and kept by coalescing)."""

    __slots__ = ("count", "frame", "message", "published_at", "uri")

    def __init__(self, uri: str, published_at: str, count: int) -> None:
        self.uri = uri
        self.published_at = published_at
        self.count = count
        self.message: Any = None
        """The transport's ``notifications/resources/updated`` for this update, made by the first send
        that needs it, then shared (``transports/push.py``: ``prepared``)."""
        self.frame: Any = None
        """The same as an SSE body message for a GET event stream, made once too (``transports/push.py``)."""

    @property
    def meta(self) -> dict[str, Any]:
        return {META_COUNT: self.count, META_AT: self.published_at}


SendUpdate = Callable[[Update], Awaitable[None]]
"""``send(update)``: deliver one ``notifications/resources/updated`` to one connection."""


class Subscriber:
    """One connection's subscriptions and its pending (coalesced) updates."""

    def __init__(self, connection_id: str, send: SendUpdate, principal: str = "local") -> None:
        self.connection_id = connection_id
        self.send = send
        self.principal = principal
        """Who opened the connection (the SDK binds a session to its credential, so it never changes)."""
        self.uris: set[str] = set()
        self.pending: dict[str, Update] = {}
        """URI -> its newest unsent update (what a coalesced send reports)."""
        self.queued = False
        self.sending = False
        """One send at a time per subscriber: order is kept and a burst coalesces while one is in flight."""
        self.delivered = 0
        self.closed = False


class Notifier:
    def __init__(
        self,
        bus: SubscriptionBus | None = None,
        *,
        send_timeout_s: float = 5.0,
        max_subscriptions_per_connection: int = 256,
        max_subscriptions_per_principal: int = 1024,
        writers: int = 2,
        max_spare_writers: int = 64,
        share_updates: bool = True,
    ) -> None:
        self._bus = bus
        self._unsubscribe_bus: Callable[[], None] | None = None
        self.send_timeout_s = send_timeout_s
        self.max_subscriptions_per_connection = max_subscriptions_per_connection
        self.max_subscriptions_per_principal = max_subscriptions_per_principal
        self._held: dict[str, int] = {}
        """Subscriptions by principal, summed over its connections and open listen streams: one
        principal's sessions together can never take what the others need."""
        self.held_elsewhere: Callable[[str], int] = lambda principal: 0
        """What the principal holds on the other live replicas (set by the root with a shared store)."""
        self._subscribers: dict[str, Subscriber] = {}
        self._by_uri: dict[str, set[str]] = {}
        self._listen_counts: dict[str, int] = {}
        self._ready: deque[Subscriber] = deque()
        self._ready_event = anyio.Event()
        self.writers = writers
        self._writers: set[_Writer] = set()
        self.stuck_after_s = min(0.25, send_timeout_s / 2)
        self.max_spare_writers = max_spare_writers
        self._tg: TaskGroup | None = None
        self.share_updates = share_updates
        """False builds and serialises one message per subscriber (the previous design; bench only)."""

    async def __aenter__(self) -> Notifier:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        for _ in range(self.writers):
            self._spawn_writer()
        self._tg.start_soon(self._watchdog)
        if self._bus is not None:
            self._unsubscribe_bus = self._bus.subscribe(self._on_event)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._tg is not None
        if self._unsubscribe_bus is not None:
            self._unsubscribe_bus()
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(None, None, None)
        self._tg = None

    # -- handshake-era subscriptions -------------------------------------------------------

    def subscribe(self, connection_id: str, uri: str, send: SendUpdate, principal: str = "local") -> None:
        """Raises ``InvalidInput`` past the connection's cap and ``QuotaExceeded`` past the principal's."""
        assert self._tg is not None, "Notifier used outside its lifespan"
        subscriber = self._subscribers.get(connection_id)
        if subscriber is None:
            subscriber = Subscriber(connection_id, send, principal)
            self._subscribers[connection_id] = subscriber
        if uri in subscriber.uris:
            return
        if len(subscriber.uris) >= self.max_subscriptions_per_connection:
            raise InvalidInput(
                f"this connection already has {len(subscriber.uris)} subscriptions, the most allowed "
                "(setting subscriptions.max_per_connection); unsubscribe from some first"
            )
        self._hold(subscriber.principal, 1)
        subscriber.uris.add(uri)
        self._by_uri.setdefault(uri, set()).add(connection_id)

    def unsubscribe(self, connection_id: str, uri: str) -> None:
        subscriber = self._subscribers.get(connection_id)
        if subscriber is not None and uri in subscriber.uris:
            subscriber.uris.discard(uri)
            subscriber.pending.pop(uri, None)
            self._release(subscriber.principal, 1)
        self._forget(connection_id, uri)

    def _forget(self, connection_id: str, uri: str) -> None:
        ids = self._by_uri.get(uri)
        if ids is not None:
            ids.discard(connection_id)
            if not ids:
                del self._by_uri[uri]

    def remove(self, connection_id: str) -> None:
        """Forget a connection (it closed, or its writer timed out): its subscriptions free the principal's."""
        subscriber = self._subscribers.pop(connection_id, None)
        if subscriber is None:
            return
        subscriber.closed = True
        self._release(subscriber.principal, len(subscriber.uris))
        for uri in subscriber.uris:
            self._forget(connection_id, uri)
        subscriber.uris.clear()
        subscriber.pending.clear()

    def _hold(self, principal: str, count: int) -> None:
        """Count ``count`` more subscriptions against ``principal``, or refuse them all (nothing counted)."""
        here, most = self._held.get(principal, 0), self.max_subscriptions_per_principal
        elsewhere = self.held_elsewhere(principal)
        if here + elsewhere + count > most:
            more = "one more" if count == 1 else f"{count} more (one per URI of this listen)"
            where = f" ({elsewhere} of them on other replicas)" if elsewhere else ""
            raise QuotaExceeded(
                f"principal {principal!r} already holds {here + elsewhere} subscriptions across its sessions and "
                f"listen streams{where}; {more} would pass the {most} one principal may hold (setting "
                "subscriptions.max_per_principal). Unsubscribe from some, or close sessions no longer used, "
                "then subscribe again"
            )
        self._held[principal] = here + count

    def _release(self, principal: str, count: int) -> None:
        left = self._held.get(principal, 0) - count
        if left > 0:
            self._held[principal] = left
        else:
            self._held.pop(principal, None)

    def subscribers_of(self, uri: str) -> list[Subscriber]:
        return [s for cid in self._by_uri.get(uri, ()) if (s := self._subscribers.get(cid)) is not None]

    def subscriptions_of(self, connection_id: str) -> set[str]:
        subscriber = self._subscribers.get(connection_id)
        return set(subscriber.uris) if subscriber else set()

    # -- 2026-07-28 listen streams (counted for subscriber_count) ---------------------------

    def listen_opened(self, uris: list[str], principal: str = "local") -> None:
        """Count a stream's URIs against ``principal`` (``QuotaExceeded`` past its cap, nothing counted)."""
        self._hold(principal, len(uris))
        for uri in uris:
            self._listen_counts[uri] = self._listen_counts.get(uri, 0) + 1

    def listen_closed(self, uris: list[str], principal: str = "local") -> None:
        self._release(principal, len(uris))
        for uri in uris:
            left = self._listen_counts.get(uri, 0) - 1
            if left > 0:
                self._listen_counts[uri] = left
            else:
                self._listen_counts.pop(uri, None)

    def subscriber_count(self, uri: str) -> int:
        return len(self._by_uri.get(uri, ())) + self._listen_counts.get(uri, 0)

    def held(self) -> dict[str, int]:
        """Subscriptions held here by each principal: what replicas publish to each other for the cap."""
        return dict(self._held)

    def counts(self) -> dict[str, int]:
        """Every URI with a subscriber here and how many (both eras): what replicas publish to each other."""
        totals = {uri: len(ids) for uri, ids in self._by_uri.items() if ids}
        for uri, n in self._listen_counts.items():
            totals[uri] = totals.get(uri, 0) + n
        return totals

    # -- publishing ------------------------------------------------------------------------

    async def publish(self, uri: str) -> str:
        """Mark ``uri`` changed for every subscriber and let the writers run; see ``mark``."""
        published_at = self.mark(uri)
        await anyio.lowlevel.checkpoint()
        return published_at

    def mark(self, uri: str) -> str:
        """Mark ``uri`` changed for every subscriber; O(1) each, never awaits a client.

        Returns the publish timestamp the notifications will carry.
        """
        published_at = datetime.now(UTC).isoformat()
        ids = self._by_uri.get(uri, ())
        count = len(ids) + self._listen_counts.get(uri, 0)
        update = Update(uri, published_at, count)
        for connection_id in ids:
            subscriber = self._subscribers.get(connection_id)
            if subscriber is not None:
                subscriber.pending[uri] = update if self.share_updates else Update(uri, published_at, count)
                self._enqueue(subscriber)
        if self._ready:
            self._ready_event.set()
        return published_at

    def _on_event(self, event: ServerEvent) -> None:
        """The bus listener: a synchronous mark, as the SDK's bus requires of its listeners."""
        if isinstance(event, ResourceUpdated):
            self.mark(event.uri)

    def _enqueue(self, subscriber: Subscriber) -> None:
        if not subscriber.queued and not subscriber.sending and not subscriber.closed:
            subscriber.queued = True
            self._ready.append(subscriber)

    def _spawn_writer(self) -> None:
        assert self._tg is not None
        writer = _Writer()
        self._writers.add(writer)  # counted at once, so the watchdog never over-spawns
        self._tg.start_soon(self._writer, writer)

    async def _writer(self, writer: _Writer) -> None:
        """Take the next subscriber with something pending, send it one update, requeue if more.

        No cancel scope per send (it was half of a writer's CPU): the watchdog cancels a writer
        whose send overran the timeout. A spare writer retires when there is no work and enough
        free writers remain.
        """
        with writer.scope:
            try:
                slice_start = time.monotonic()
                while True:
                    if writer.since - slice_start > SLICE_S:
                        await anyio.lowlevel.checkpoint()  # let requests and the other writers in
                        slice_start = time.monotonic()
                    while not self._ready:
                        if len(self._writers) - self._stuck > self.writers:
                            return  # a spare whose stalled colleague came back or was dropped
                        if self._ready_event.is_set():
                            self._ready_event = anyio.Event()
                        await self._ready_event.wait()
                        slice_start = time.monotonic()
                    subscriber = self._ready.popleft()
                    subscriber.queued = False
                    if subscriber.closed or not subscriber.pending:
                        continue
                    await self._send_one(writer, subscriber)
                    if subscriber.pending:  # more arrived meanwhile: back of the line, so everyone gets a turn
                        self._enqueue(subscriber)
                        self._ready_event.set()
            finally:
                self._writers.discard(writer)

    @property
    def _stuck(self) -> int:
        """Writers whose send has been in flight longer than ``stuck_after_s`` (a few dozen at most)."""
        return sum(writer.stuck for writer in self._writers)

    async def _send_one(self, writer: _Writer, subscriber: Subscriber) -> None:
        update = subscriber.pending.pop(next(iter(subscriber.pending)))
        subscriber.sending = True
        writer.subscriber, writer.since = subscriber, time.monotonic()
        try:
            await subscriber.send(update)
            subscriber.delivered += 1
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            logger.debug("dropping subscriber %s: its connection closed", subscriber.connection_id)
            self.remove(subscriber.connection_id)
        except Exception:  # fan-out boundary: one broken connection must not stop the others
            logger.warning("dropping subscriber %s: send failed", subscriber.connection_id, exc_info=True)
            self.remove(subscriber.connection_id)
        finally:
            subscriber.sending = False
            writer.subscriber, writer.stuck = None, False  # if it was stuck, it came back after all

    async def _watchdog(self) -> None:
        """Keep ``writers`` writers free of stalled sends, and drop subscribers past the send timeout.

        A send in flight longer than ``stuck_after_s`` marks its writer stuck and a spare writer is
        started (up to ``max_spare_writers``), so several stalled clients cannot hold every writer;
        a send past ``send_timeout_s`` is cancelled and its subscriber dropped.
        """
        period = self.stuck_after_s / 2
        while True:
            await anyio.sleep(period)
            now = time.monotonic()
            for writer in list(self._writers):
                subscriber = writer.subscriber
                if subscriber is None:
                    continue
                if now - writer.since > self.send_timeout_s:
                    logger.warning("dropping subscriber %s: send timed out", subscriber.connection_id)
                    self._writers.discard(writer)
                    writer.scope.cancel()
                    self.remove(subscriber.connection_id)
                elif now - writer.since > self.stuck_after_s:
                    writer.stuck = True
            stuck = self._stuck
            while len(self._writers) - stuck < self.writers and stuck <= self.max_spare_writers:
                self._spawn_writer()


class _Writer:
    """What one writer task is sending now, and since when (read by the watchdog)."""

    __slots__ = ("scope", "since", "stuck", "subscriber")

    def __init__(self) -> None:
        self.scope = anyio.CancelScope()
        self.subscriber: Subscriber | None = None
        self.since = 0.0
        self.stuck = False
