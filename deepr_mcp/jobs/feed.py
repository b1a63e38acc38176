"""The campaign feed: the one way a campaign change is announced and the one way it is followed.

``announce`` publishes every resource URI of a campaign (built by ``jobs/uris.py``) on the
subscription bus. Everything that cares listens to that bus: the Notifier marks its
subscribers' slots, the SDK's ``ListenHandler`` feeds 2026-07-28 streams, and the feed itself
wakes its waiters. ``follow`` is the pull side: ``campaign_wait``, MCP tasks, progress
notifications and the terminal all iterate it instead of writing their own loop over the store.

Because waiters wake from the bus, not from the announcing call, a bus shared by several
processes (the SDK's ``SubscriptionBus`` shape, built for Redis) wakes every process's waiters.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable
from typing import Literal

import anyio
from mcp.server.subscriptions import ResourceUpdated, ServerEvent, SubscriptionBus

from deepr_mcp.errors import InvalidInput
from deepr_mcp.jobs.models import Campaign
from deepr_mcp.jobs.store import CampaignStore
from deepr_mcp.jobs.uris import campaign_uri, campaign_uris, expert_uris

Until = Literal["change", "phase", "complete", "decision"]

_STATUS_PREFIX, _STATUS_SUFFIX = campaign_uri("", "status").split("/status")[0], "/status"


def satisfied(until: Until, baseline: Campaign, now: Campaign, since: int) -> bool:
    """Whether ``now`` ends a follow; a finished campaign always does (nothing more will happen)."""
    if now.terminal:
        return True
    if until == "decision":
        return now.open_question is not None
    if until == "phase":
        return now.phase != baseline.phase
    if until == "change":
        return now.version > since
    return False  # "complete": only a terminal phase answers


def _campaign_of_status(uri: str) -> str | None:
    if uri.startswith(_STATUS_PREFIX) and uri.endswith(_STATUS_SUFFIX):
        return uri[len(_STATUS_PREFIX) : -len(_STATUS_SUFFIX)] or None
    return None


class CampaignFeed:
    """Announce and follow campaign changes; built on a campaign store and a subscription bus."""

    def __init__(
        self, store: CampaignStore, bus: SubscriptionBus, *, subscriber_count: Callable[[str], int] | None = None
    ) -> None:
        self._store = store
        self._bus = bus
        self._count = subscriber_count or (lambda uri: 0)
        self._changed: dict[str, anyio.Event] = {}
        self._watchers: dict[object, Callable[[str], None]] = {}
        self.announced = 0
        """How many campaign changes this process announced (a cheap health figure for tests and benches)."""
        self._unsubscribe = bus.subscribe(self._on_event)

    def close(self) -> None:
        self._unsubscribe()

    # -- announcing --------------------------------------------------------------------------

    async def announce(self, campaign_id: str) -> None:
        """Tell every subscriber and waiter that the campaign changed (saved, or deleted)."""
        self.announced += 1
        for uri in campaign_uris(campaign_id).values():
            await self._bus.publish(ResourceUpdated(uri=uri))

    async def announce_expert(self, expert_id: str) -> None:
        for uri in expert_uris(expert_id).values():
            await self._bus.publish(ResourceUpdated(uri=uri))

    def subscriber_count(self, uri: str) -> int:
        """Subscribers of ``uri`` in both eras (what the status resource and notifications report)."""
        return self._count(uri)

    def _on_event(self, event: ServerEvent) -> None:
        if isinstance(event, ResourceUpdated) and (campaign_id := _campaign_of_status(event.uri)) is not None:
            self.wake(campaign_id)
            if self._watchers:  # only with a shared store (budget questions asked on other replicas)
                for watcher in list(self._watchers.values()):
                    watcher(campaign_id)

    def watch(self, watcher: Callable[[str], None]) -> Callable[[], None]:
        """Call ``watcher(campaign_id)`` (synchronously; it must not raise) on every campaign change heard."""
        token = object()
        self._watchers[token] = watcher
        return lambda: self._watchers.pop(token, None) and None

    # -- following ---------------------------------------------------------------------------

    def wake(self, campaign_id: str) -> None:
        """Wake everyone following ``campaign_id``."""
        event = self._changed.pop(campaign_id, None)
        if event is not None:
            event.set()

    def _event(self, campaign_id: str) -> anyio.Event:
        return self._changed.setdefault(campaign_id, anyio.Event())

    async def wait_changed(self, campaign_id: str, timeout_s: float) -> bool:
        """Sleep until the campaign changes or the timeout; True if it changed. Idle waiters cost no CPU."""
        event = self._event(campaign_id)
        with anyio.move_on_after(timeout_s):
            await event.wait()
            return True
        return False

    async def follow(
        self, campaign_id: str, until: Until = "complete", *, since: int | None = None, heartbeat_s: float | None = None
    ) -> AsyncIterator[Campaign]:
        """Yield the campaign now, then after every change, until one satisfies ``until``.

        With ``heartbeat_s`` it also yields (the same state, re-read) after that long without a
        change, so a caller can report progress on a quiet campaign. The first read raises
        ``NotFound`` for an unknown id before anything waits; ``since`` (a version from an
        earlier answer) must not be newer than the campaign. The wake-up is registered before
        each read, so a change between the read and the wait is never missed.
        """
        event = self._event(campaign_id)
        baseline = await self._store.get(campaign_id)
        if since is not None and since > baseline.version:
            raise InvalidInput(
                f"since={since} is newer than the campaign's version {baseline.version}; pass the version a "
                "previous answer returned, or omit since"
            )
        effective_since = baseline.version if since is None else since
        current = baseline
        yield current
        while not satisfied(until, baseline, current, effective_since):
            with anyio.move_on_after(math.inf if heartbeat_s is None else heartbeat_s):
                await event.wait()
            event = self._event(campaign_id)
            current = await self._store.get(campaign_id)
            yield current
