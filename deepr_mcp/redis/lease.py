"""Who runs a campaign across replicas: a lease in Redis with a heartbeat and a fencing token.

``hold`` takes ``lease:{id}`` with ``SET NX PX`` and a random token, and in the same script
increments ``fence:{id}``: the fencing token, which grows with every new holder (a retry of that
script whose first reply was lost finds its own random token and answers the same fencing token). While held, a
heartbeat renews the lease every third of ``lease_s`` (only if the token is still ours); leaving
deletes it only if still ours (a Lua compare-and-delete), so a replica never frees a lease another
one took over. A replica that dies stops heartbeating; its lease expires after ``lease_s`` and a
waiting replica takes the campaign over with a larger fencing token.

How the token is used: ``fence_of(campaign_id)`` gives the (fence key, token) this replica holds;
``RedisCampaignStore`` checks it in its save script, so a replica whose lease was taken over gets
``LeaseLost`` on its next save and writes nothing; the job manager then stops that run (it also
stops before a step once the heartbeat saw the loss). ``claim`` takes a free lease without
waiting: ``jobs/takeover.py`` uses it to adopt campaigns whose replica died.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio
import redis.asyncio as aioredis

from deepr_mcp.errors import DeeprError
from deepr_mcp.redis.client import call

logger = logging.getLogger(__name__)

_ACQUIRE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('INCR', KEYS[2]) end
if redis.call('GET', KEYS[1]) == ARGV[1] then return tonumber(redis.call('GET', KEYS[2])) end -- a retry
return false
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


@dataclass
class Held:
    """This replica's hold on one campaign: its token, fencing number and heartbeat."""

    token: str
    fence: int
    heartbeat: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    lost: bool = False
    renewals: int = 0
    released: anyio.Event = field(default_factory=anyio.Event)
    """Set once the holder has left (and released the lease if it was still its own)."""


class RedisLease:
    """The ``CampaignLease`` of several replicas sharing one Redis."""

    def __init__(
        self, client: aioredis.Redis, *, url: str, prefix: str = "deepr:", lease_s: float = 15.0, poll_s: float = 0.0
    ) -> None:
        self._redis = client
        self._url = url
        self._prefix = prefix
        self.lease_s = lease_s
        self._poll_s = poll_s or min(1.0, lease_s / 10)
        self._held: dict[str, Held] = {}
        self._claimed: dict[str, Held] = {}
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)

    def _keys(self, campaign_id: str) -> list[str]:
        return [f"{self._prefix}lease:{campaign_id}", f"{self._prefix}fence:{campaign_id}"]

    def fence_of(self, campaign_id: str) -> tuple[str, int] | None:
        """The (fence key, token) a save must still match, while this replica holds ``campaign_id``."""
        held = self._held.get(campaign_id)
        return (self._keys(campaign_id)[1], held.fence) if held else None

    def held(self, campaign_id: str) -> Held | None:
        return self._held.get(campaign_id)

    def lost(self, campaign_id: str) -> bool:
        """Whether this replica's hold on ``campaign_id`` was taken over (seen by its heartbeat)."""
        held = self._held.get(campaign_id)
        return held is not None and held.lost

    async def claim(self, campaign_id: str) -> bool:
        """Take the lease now if nobody holds it (one try, never waits); the next ``hold`` here uses it.

        Unused, the claim simply expires after ``lease_s``.
        """
        token, ms = secrets.token_hex(16), str(int(self.lease_s * 1000))
        fence = await call(self._url, lambda: self._acquire(keys=self._keys(campaign_id), args=[token, ms]))
        if fence:
            self._claimed[campaign_id] = Held(token=token, fence=int(fence))
        return bool(fence)

    def abandon(self, campaign_id: str) -> None:
        """Stop renewing without releasing: what a replica's death looks like to the others (tests)."""
        held = self._held.get(campaign_id)
        if held:
            held.heartbeat.cancel()

    async def _take(self, campaign_id: str) -> Held:
        if (claimed := self._claimed.pop(campaign_id, None)) is not None:
            return claimed
        token = secrets.token_hex(16)
        ms = str(int(self.lease_s * 1000))
        keys = self._keys(campaign_id)
        while True:
            try:
                fence = await call(self._url, lambda: self._acquire(keys=keys, args=[token, ms]))
            except DeeprError as exc:  # the engine is down: wait for it rather than fail the campaign
                logger.warning("lease for %s: %s", campaign_id, exc.message)
                fence = None
            if fence:
                return Held(token=token, fence=int(fence))
            await anyio.sleep(self._poll_s)

    async def _beat(self, campaign_id: str, held: Held) -> None:
        keys, ms = self._keys(campaign_id), str(int(self.lease_s * 1000))
        with held.heartbeat:
            while True:
                await anyio.sleep(self.lease_s / 3)
                try:
                    renewed = await call(self._url, lambda: self._renew(keys=keys, args=[held.token, ms]))
                except DeeprError as exc:
                    logger.warning("lease heartbeat for %s: %s", campaign_id, exc.message)
                    continue
                if renewed:
                    held.renewals += 1
                    continue
                held.lost = True
                logger.warning("lease for %s was taken over (fence %s); saves will be refused", campaign_id, held.fence)
                return

    @asynccontextmanager
    async def hold(self, campaign_id: str) -> AsyncIterator[None]:
        """Enter once this replica alone runs ``campaign_id``; a second holder here waits like any other."""
        held = await self._take(campaign_id)
        self._held[campaign_id] = held
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._beat, campaign_id, held)
                try:
                    yield
                finally:
                    tg.cancel_scope.cancel()
        except BaseExceptionGroup as group:  # the body's own error, as it raised it (the heartbeat never raises)
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
        finally:
            if self._held.get(campaign_id) is held:
                del self._held[campaign_id]
            with anyio.CancelScope(shield=True), anyio.move_on_after(self.lease_s):
                try:
                    await call(self._url, lambda: self._release(keys=self._keys(campaign_id), args=[held.token]))
                except DeeprError as exc:  # it expires on its own after lease_s
                    logger.warning("lease release for %s: %s", campaign_id, exc.message)
            held.released.set()
