"""Fan-out of "this resource changed" to every subscriber, in both protocol eras.

Publishing never awaits a client: it marks the URI in each subscriber's pending set (updates
to one URI coalesce, since ``resources/updated`` only means "re-read me") and wakes that
subscriber's writer. One writer task per handshake-era connection drains its set with a send
timeout; a writer that times out drops its subscriber. So a stalled client costs the others
nothing, and a burst of updates costs each subscriber one notification. 2026-07-28 clients
get the same events through the SDK's ``SubscriptionBus``/``ListenHandler``.

The same feed wakes ``wait_for_change`` callers, the pull twin of every push.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

import anyio
from anyio.abc import TaskGroup
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated, SubscriptionBus

from deepr_mcp.errors import InvalidInput

logger = logging.getLogger(__name__)

SendUpdate = Callable[[str, dict[str, Any]], Awaitable[None]]
"""``send(uri, meta)``: deliver one ``notifications/resources/updated`` to one connection."""

META_COUNT = "deepr/subscriberCount"
META_AT = "deepr/publishedAt"


class Subscriber:
    """One connection's subscriptions and its pending (coalesced) updates."""

    def __init__(self, connection_id: str, send: SendUpdate) -> None:
        self.connection_id = connection_id
        self.send = send
        self.uris: set[str] = set()
        self.pending: dict[str, None] = {}
        self.wake = anyio.Event()
        self.delivered = 0
        self.closed = False

    def mark(self, uri: str) -> None:
        self.pending[uri] = None
        self.wake.set()


class Notifier:
    def __init__(
        self,
        bus: SubscriptionBus | None = None,
        *,
        send_timeout_s: float = 5.0,
        max_subscriptions_per_connection: int = 256,
    ) -> None:
        self.bus = bus or InMemorySubscriptionBus()
        self.send_timeout_s = send_timeout_s
        self.max_subscriptions_per_connection = max_subscriptions_per_connection
        self._subscribers: dict[str, Subscriber] = {}
        self._by_uri: dict[str, set[str]] = {}
        self._listen_counts: dict[str, int] = {}
        self._changed: dict[str, anyio.Event] = {}
        self._tg: TaskGroup | None = None

    async def __aenter__(self) -> Notifier:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._tg is not None
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(None, None, None)
        self._tg = None

    # -- handshake-era subscriptions -------------------------------------------------------

    def subscribe(self, connection_id: str, uri: str, send: SendUpdate) -> None:
        subscriber = self._subscribers.get(connection_id)
        if subscriber is None:
            subscriber = Subscriber(connection_id, send)
            self._subscribers[connection_id] = subscriber
            assert self._tg is not None, "Notifier used outside its lifespan"
            self._tg.start_soon(self._writer, subscriber)
        if uri not in subscriber.uris and len(subscriber.uris) >= self.max_subscriptions_per_connection:
            raise InvalidInput(
                f"this connection already has {len(subscriber.uris)} subscriptions, the most allowed; "
                "unsubscribe from some first"
            )
        subscriber.uris.add(uri)
        self._by_uri.setdefault(uri, set()).add(connection_id)

    def unsubscribe(self, connection_id: str, uri: str) -> None:
        subscriber = self._subscribers.get(connection_id)
        if subscriber is not None:
            subscriber.uris.discard(uri)
            subscriber.pending.pop(uri, None)
        ids = self._by_uri.get(uri)
        if ids is not None:
            ids.discard(connection_id)
            if not ids:
                del self._by_uri[uri]

    def remove(self, connection_id: str) -> None:
        """Forget a connection (it closed, or its writer timed out)."""
        subscriber = self._subscribers.pop(connection_id, None)
        if subscriber is None:
            return
        subscriber.closed = True
        subscriber.wake.set()
        for uri in list(subscriber.uris):
            self.unsubscribe(connection_id, uri)

    def subscriptions_of(self, connection_id: str) -> set[str]:
        subscriber = self._subscribers.get(connection_id)
        return set(subscriber.uris) if subscriber else set()

    # -- 2026-07-28 listen streams (counted for subscriber_count) ---------------------------

    def listen_opened(self, uris: list[str]) -> None:
        for uri in uris:
            self._listen_counts[uri] = self._listen_counts.get(uri, 0) + 1

    def listen_closed(self, uris: list[str]) -> None:
        for uri in uris:
            left = self._listen_counts.get(uri, 0) - 1
            if left > 0:
                self._listen_counts[uri] = left
            else:
                self._listen_counts.pop(uri, None)

    def subscriber_count(self, uri: str) -> int:
        return len(self._by_uri.get(uri, ())) + self._listen_counts.get(uri, 0)

    # -- publishing ------------------------------------------------------------------------

    async def publish(self, uri: str) -> None:
        """Mark ``uri`` changed for every subscriber; O(1) each, never awaits a client."""
        for connection_id in self._by_uri.get(uri, ()):
            subscriber = self._subscribers.get(connection_id)
            if subscriber is not None:
                subscriber.mark(uri)
        await self.bus.publish(ResourceUpdated(uri=uri))

    def changed(self, key: str) -> None:
        """Wake everyone waiting on ``key`` (a campaign id)."""
        event = self._changed.pop(key, None)
        if event is not None:
            event.set()

    async def wait_changed(self, key: str, timeout_s: float) -> bool:
        """Sleep until ``changed(key)`` or the timeout; True if it changed. Idle waiters cost no CPU."""
        event = self._changed.setdefault(key, anyio.Event())
        with anyio.move_on_after(timeout_s):
            await event.wait()
            return True
        return False

    async def _writer(self, subscriber: Subscriber) -> None:
        while not subscriber.closed:
            await subscriber.wake.wait()
            subscriber.wake = anyio.Event()
            while subscriber.pending and not subscriber.closed:
                uri = next(iter(subscriber.pending))
                del subscriber.pending[uri]
                meta = {META_COUNT: self.subscriber_count(uri), META_AT: datetime.now(UTC).isoformat()}
                try:
                    with anyio.fail_after(self.send_timeout_s):
                        await subscriber.send(uri, meta)
                    subscriber.delivered += 1
                except TimeoutError:
                    logger.warning("dropping subscriber %s: send timed out", subscriber.connection_id)
                    self.remove(subscriber.connection_id)
                    return
                except Exception:  # fan-out boundary: one broken connection must not stop the others
                    logger.warning("dropping subscriber %s: send failed", subscriber.connection_id, exc_info=True)
                    self.remove(subscriber.connection_id)
                    return
