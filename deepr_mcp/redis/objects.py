"""Stored big results in Redis, so an ``@obj_…`` reference made through one replica resolves on all.

Layout (under the prefix): ``obj:{id}`` is a hash of ``owner``, ``size`` and the JSON ``value``,
expiring after ``ttl_s`` (Redis drops it); ``obj-owner:{owner}`` is a sorted set of that owner's
ids scored by creation order (milliseconds x 1000 plus a per-owner counter, so two puts in the same
millisecond keep their order), with each id's size in ``obj-size``, so one Lua script can enforce the
per-owner byte limit by dropping the owner's oldest objects, never another owner's.
"""

from __future__ import annotations

import json
import time
from typing import Any

import redis.asyncio as aioredis

from deepr_mcp.objects.store import StoredObject, new_object_id
from deepr_mcp.redis.client import call

__all__ = ["RedisObjectStore"]

_PUT = """
local owner_key, sizes = KEYS[2], KEYS[3]
local now, ttl_ms, size, limit = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[3]), tonumber(ARGV[6])
-- forget what has expired, then make room by dropping this owner's oldest
for _, id in ipairs(redis.call('ZRANGEBYSCORE', owner_key, '-inf', (now - ttl_ms) * 1000)) do
  redis.call('ZREM', owner_key, id); redis.call('HDEL', sizes, id)
end
local total = 0
local held = redis.call('ZRANGE', owner_key, 0, -1)
for _, id in ipairs(held) do total = total + tonumber(redis.call('HGET', sizes, id) or '0') end
for _, id in ipairs(held) do
  if total + size <= limit then break end
  total = total - tonumber(redis.call('HGET', sizes, id) or '0')
  redis.call('ZREM', owner_key, id); redis.call('HDEL', sizes, id)
  redis.call('DEL', ARGV[7] .. id)
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'value', ARGV[2], 'size', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl_ms)
local seq = redis.call('INCR', KEYS[4]) % 1000
redis.call('PEXPIRE', KEYS[4], ttl_ms)
redis.call('ZADD', owner_key, now * 1000 + seq, ARGV[8])
redis.call('PEXPIRE', owner_key, ttl_ms)
redis.call('HSET', sizes, ARGV[8], ARGV[3])
return 1
"""

_GET = """
local f = redis.call('HMGET', KEYS[1], 'owner', 'value', 'size')
if f[1] ~= ARGV[1] or not f[2] then return false end -- another owner's value never leaves the engine
return {f[2], f[3] or '0', redis.call('PTTL', KEYS[1])}
"""


class RedisObjectStore:
    """The ``ObjectStore`` of several replicas: same owners, TTL and per-owner limit as in memory."""

    def __init__(
        self, client: aioredis.Redis, *, url: str, ttl_s: float, max_bytes_per_owner: int, prefix: str = "deepr:"
    ) -> None:
        self._redis = client
        self._url = url
        self.ttl_s = ttl_s
        self.max_bytes_per_owner = max_bytes_per_owner
        self._prefix = prefix
        self._put = client.register_script(_PUT)
        self._get = client.register_script(_GET)

    def _key(self, object_id: str) -> str:
        return f"{self._prefix}obj:{object_id}"

    async def put(self, owner: str, value: Any, size_bytes: int) -> StoredObject:
        if size_bytes > self.max_bytes_per_owner:
            raise ValueError(f"{size_bytes} bytes is over the per-owner limit of {self.max_bytes_per_owner}")
        object_id, now = new_object_id(), time.time()
        keys = [self._key(object_id), f"{self._prefix}obj-owner:{owner}", f"{self._prefix}obj-size:{owner}"]
        keys.append(f"{self._prefix}obj-seq:{owner}")
        args = [owner, json.dumps(value), str(size_bytes), str(int(now * 1000)), str(int(self.ttl_s * 1000))]
        args += [str(self.max_bytes_per_owner), f"{self._prefix}obj:", object_id]
        await call(self._url, lambda: self._put(keys=keys, args=args))
        return StoredObject(object_id, owner, value, size_bytes, now + self.ttl_s)

    async def get(self, owner: str, object_id: str) -> StoredObject | None:
        """One round trip: the owner check, the value and its time left, in one script."""
        found = await call(self._url, lambda: self._get(keys=[self._key(object_id)], args=[owner]))
        if not found:
            return None  # unknown, expired, or another owner's: the same answer
        value, size, left_ms = found
        return StoredObject(object_id, owner, json.loads(value), int(size), time.time() + max(int(left_ms), 0) / 1000)
