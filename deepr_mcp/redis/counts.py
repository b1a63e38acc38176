"""Subscriber counts across replicas: what ``subscriber_count`` in a campaign's status reports.

Each replica knows its own subscribers (handshake ``resources/subscribe`` and 2026-07-28 listen
streams, counted by the Notifier). With a shared store, a heartbeat (every ``interval_s``, at most
1 s) writes this replica's counts as one hash ``subs:{replica}`` (URI -> count) that expires after
``ttl_s`` (the lease time), records the replica in the sorted set ``subs-replicas`` by time, and
reads the other live replicas' hashes back: one Lua script, one round trip. The same hash carries
how many subscriptions each principal holds there (``held {principal}``), so the per-principal cap
(``subscriptions.max_per_principal``) counts every replica, at most one interval behind. A status read then
adds this replica's exact count to the others' last heartbeat: no round trip per read, at most
one interval behind. A replica that dies stops refreshing; its hash expires and its entry is
pruned, so its subscribers stop counting within ``ttl_s``, as its campaigns are taken over.
While the engine is down the last counts heard stay; the next heartbeat after it is back writes
this replica's hash again (it is rewritten whole every time, so an emptied engine heals).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from types import TracebackType

import anyio
import redis.asyncio as aioredis
from anyio.abc import TaskGroup

from deepr_mcp.errors import DeeprError
from deepr_mcp.redis.client import call

__all__ = ["HELD", "ClusterCounts"]

HELD = "held "
"""Field prefix for a principal's subscriptions in a replica's hash (no URI has a space)."""

logger = logging.getLogger(__name__)

_BEAT = """
local mine, now, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('DEL', ARGV[4] .. mine)
local i = 5
while i < #ARGV do -- in slices: unpack has a stack limit
  local j = math.min(i + 199, #ARGV)
  redis.call('HSET', ARGV[4] .. mine, unpack(ARGV, i, j))
  i = j + 1
end
if #ARGV > 4 then redis.call('PEXPIRE', ARGV[4] .. mine, ttl) end
redis.call('ZADD', KEYS[1], now, mine)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
redis.call('PEXPIRE', KEYS[1], ttl)
local out = {}
for _, replica in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if replica ~= mine then out[#out + 1] = redis.call('HGETALL', ARGV[4] .. replica) end
end
return out
"""


_LEAVE = """
redis.call('DEL', ARGV[2] .. ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
"""


class ClusterCounts:
    """Other replicas' subscriber counts, refreshed by a heartbeat that also publishes this one's."""

    def __init__(
        self,
        client: aioredis.Redis,
        *,
        url: str,
        local: Callable[[], dict[str, int]],
        held: Callable[[], dict[str, int]] = dict,
        ttl_s: float,
        prefix: str = "deepr:",
    ) -> None:
        self._url = url
        self._local = local
        self._held = held
        self.ttl_s = ttl_s
        self.interval_s = min(1.0, ttl_s / 5)
        self._prefix = prefix
        self.replica = secrets.token_hex(8)
        self._beat = client.register_script(_BEAT)
        self._leave = client.register_script(_LEAVE)
        self._elsewhere: dict[str, int] = {}
        self._tg: TaskGroup | None = None
        self.beats = 0
        """Heartbeats that reached the engine (a cheap health figure for tests)."""

    def elsewhere(self, uri: str) -> int:
        """Subscribers of ``uri`` on the other live replicas, as of their last heartbeat."""
        return self._elsewhere.get(uri, 0)

    def held_elsewhere(self, principal: str) -> int:
        """Subscriptions ``principal`` holds on the other live replicas, as of their last heartbeat."""
        return self._elsewhere.get(HELD + principal, 0)

    async def beat(self) -> None:
        """Publish this replica's counts and read the others' (one script); raises ``StoreUnavailable``."""
        now_ms, ttl_ms = str(int(time.time() * 1000)), str(int(self.ttl_s * 1000))
        args = [self.replica, now_ms, ttl_ms, f"{self._prefix}subs:"]
        for uri, count in self._local().items():
            if count > 0:
                args += [uri, str(count)]
        for principal, count in self._held().items():
            if count > 0:
                args += [HELD + principal, str(count)]
        keys = [f"{self._prefix}subs-replicas"]
        replies = await call(self._url, lambda: self._beat(keys=keys, args=args))
        self._elsewhere = _summed(replies)
        self.beats += 1

    def _me(self) -> list[str]:
        return [self.replica, f"{self._prefix}subs:"]

    async def _heartbeat(self) -> None:
        down = False
        while True:
            try:
                await self.beat()
                down = False
            except DeeprError as exc:  # the engine is down: keep the last counts heard, say so once
                if not down:
                    logger.info("subscriber counts not refreshed: %s", exc.message)
                down = True
            await anyio.sleep(self.interval_s)

    async def __aenter__(self) -> ClusterCounts:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._tg.start_soon(self._heartbeat)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._tg is not None
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(None, None, None)
        self._tg = None
        with anyio.move_on_after(1.0):  # a clean stop takes this replica's counts away now, not at expiry
            try:
                await call(self._url, lambda: self._leave(keys=[f"{self._prefix}subs-replicas"], args=self._me()))
            except DeeprError:
                pass  # the engine is down: the hash expires on its own


def _summed(replies: object) -> dict[str, int]:
    """Sum the other replicas' ``[uri, count, ...]`` lists; anything malformed is skipped, never raised."""
    totals: dict[str, int] = {}
    for flat in replies if isinstance(replies, list) else ():
        if not isinstance(flat, list):
            continue
        for uri, raw in zip(flat[::2], flat[1::2], strict=False):
            try:
                count = int(raw)
            except (TypeError, ValueError):
                continue
            if isinstance(uri, str) and 0 < count < 1_000_000_000:
                totals[uri] = totals.get(uri, 0) + count
    return totals
