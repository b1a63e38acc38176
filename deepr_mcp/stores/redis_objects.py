"""Stored big results in Redis, so an ``@obj_…`` reference made through one replica resolves on all.

Layout (under the prefix): ``obj:{id}`` is a hash of ``owner``, ``size`` and the JSON ``value``,
expiring after ``ttl_s`` (Redis drops it); ``obj-owner:{owner}`` is a sorted set of that owner's
ids scored by creation order (milliseconds x 1000 plus a per-owner counter, so two puts in the same
millisecond keep their order), with each id's size in ``obj-size``, so one Lua script can enforce the
per-owner byte limit by dropping the owner's oldest objects, never another owner's. ``obj-all`` (every
id, same scores), ``obj-all-owner`` (id -> owner) and ``obj-total`` (bytes held) let the same script
hold the store-wide ``max_total_bytes`` across every replica: ``obj-held`` (owner -> bytes) names the
owner holding the most, whose oldest goes first, as in memory.
"""

from __future__ import annotations

import json
import time
from typing import Any

import redis.asyncio as aioredis

from deepr_mcp.objects.store import StoredObject, new_object_id
from deepr_mcp.stores.redis_client import call

__all__ = ["RedisObjectStore"]

_PUT = """
local owner_key, sizes, all, owners, total_key = KEYS[2], KEYS[3], KEYS[5], KEYS[6], KEYS[7]
local now, ttl_ms, size, limit = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[3]), tonumber(ARGV[6])
local total_limit, prefix, held_key = tonumber(ARGV[9]), ARGV[10], KEYS[9]
local best_owner = nil
-- one object out of everything that names it (its owner's set and sizes, the store-wide set and total)
local function drop(id, who)
  local skey = prefix .. 'obj-size:' .. who
  local s = tonumber(redis.call('HGET', skey, id) or '0')
  redis.call('ZREM', prefix .. 'obj-owner:' .. who, id); redis.call('HDEL', skey, id)
  if redis.call('ZREM', all, id) == 1 then
    redis.call('DECRBY', total_key, s)
    if redis.call('HINCRBY', held_key, who, -s) <= 0 then redis.call('HDEL', held_key, who) end
  end
  redis.call('HDEL', owners, id)
  redis.call('DEL', ARGV[7] .. id)
end
-- forget what has expired (everyone's), then make room: this owner's oldest, then the store's oldest
for _, id in ipairs(redis.call('ZRANGEBYSCORE', all, '-inf', (now - ttl_ms) * 1000)) do
  drop(id, redis.call('HGET', owners, id) or '')
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', owner_key, '-inf', (now - ttl_ms) * 1000)) do
  redis.call('ZREM', owner_key, id); redis.call('HDEL', sizes, id)
end
local total = 0
local held = redis.call('ZRANGE', owner_key, 0, -1)
for _, id in ipairs(held) do total = total + tonumber(redis.call('HGET', sizes, id) or '0') end
for _, id in ipairs(held) do
  if total + size <= limit then break end
  total = total - tonumber(redis.call('HGET', sizes, id) or '0')
  drop(id, ARGV[1])
end
local evicted = 0
-- over the store-wide total: the owner holding the most bytes (counting this put) loses its oldest,
-- so the principal flooding the store pays; on a tie, the owner whose oldest object is oldest
while tonumber(redis.call('GET', total_key) or '0') + size > total_limit do
  local flat = redis.call('HGETALL', held_key)
  local best, most, since = nil, -1, nil
  for i = 1, #flat, 2 do
    local who = flat[i]
    local b = tonumber(flat[i + 1]) + (who == ARGV[1] and size or 0)
    if b >= most then
      local first = redis.call('ZRANGE', prefix .. 'obj-owner:' .. who, 0, 0, 'WITHSCORES')
      local at = tonumber(first[2] or '0')
      if #first == 0 then redis.call('HDEL', held_key, who)
      elseif b > most or at < since then best, most, since = first[1], b, at; best_owner = who end
    end
  end
  if not best then break end
  drop(best, best_owner)
  evicted = evicted + 1
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'value', ARGV[2], 'size', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl_ms)
local seq = redis.call('INCR', KEYS[4]) % 1000
redis.call('PEXPIRE', KEYS[4], ttl_ms)
redis.call('ZADD', owner_key, now * 1000 + seq, ARGV[8])
redis.call('PEXPIRE', owner_key, ttl_ms)
redis.call('HSET', sizes, ARGV[8], ARGV[3])
redis.call('ZADD', all, now * 1000 + redis.call('INCR', KEYS[8]) % 1000, ARGV[8])
redis.call('HSET', owners, ARGV[8], ARGV[1])
redis.call('INCRBY', total_key, size)
redis.call('HINCRBY', held_key, ARGV[1], size)
for _, key in ipairs({sizes, all, owners, total_key, KEYS[8], held_key}) do redis.call('PEXPIRE', key, ttl_ms) end
return evicted
"""

_GET = """
local f = redis.call('HMGET', KEYS[1], 'owner', 'value', 'size')
if f[1] ~= ARGV[1] or not f[2] then return false end -- another owner's value never leaves the engine
return {f[2], f[3] or '0', redis.call('PTTL', KEYS[1])}
"""


class RedisObjectStore:
    """The ``ObjectStore`` of several replicas: same owners, TTL, per-owner and total limits as in memory."""

    def __init__(
        self,
        client: aioredis.Redis,
        *,
        url: str,
        ttl_s: float,
        max_bytes_per_owner: int,
        max_total_bytes: int | None = None,
        prefix: str = "deepr:",
    ) -> None:
        self._redis = client
        self._url = url
        self.ttl_s = ttl_s
        self.max_bytes_per_owner = max_bytes_per_owner
        self.max_total_bytes = max_total_bytes if max_total_bytes is not None else 4 * max_bytes_per_owner
        self.evicted = 0
        """Objects this replica's puts dropped to keep the store-wide total (others' puts count their own)."""
        self._prefix = prefix
        self._put = client.register_script(_PUT)
        self._get = client.register_script(_GET)

    def _key(self, object_id: str) -> str:
        return f"{self._prefix}obj:{object_id}"

    async def put(self, owner: str, value: Any, size_bytes: int) -> StoredObject:
        if size_bytes > self.max_bytes_per_owner:
            raise ValueError(f"{size_bytes} bytes is over the per-owner limit of {self.max_bytes_per_owner}")
        if size_bytes > self.max_total_bytes:
            raise ValueError(f"{size_bytes} bytes is over the store's total limit of {self.max_total_bytes}")
        object_id, now = new_object_id(), time.time()
        keys = [self._key(object_id), f"{self._prefix}obj-owner:{owner}", f"{self._prefix}obj-size:{owner}"]
        keys.append(f"{self._prefix}obj-seq:{owner}")
        keys += [
            f"{self._prefix}{name}" for name in ("obj-all", "obj-all-owner", "obj-total", "obj-all-seq", "obj-held")
        ]
        args = [owner, json.dumps(value), str(size_bytes), str(int(now * 1000)), str(int(self.ttl_s * 1000))]
        args += [str(self.max_bytes_per_owner), f"{self._prefix}obj:", object_id]
        args += [str(self.max_total_bytes), self._prefix]
        self.evicted += int(await call(self._url, lambda: self._put(keys=keys, args=args)) or 0)
        return StoredObject(object_id, owner, value, size_bytes, now + self.ttl_s)

    async def get(self, owner: str, object_id: str) -> StoredObject | None:
        """One round trip: the owner check, the value and its time left, in one script."""
        found = await call(self._url, lambda: self._get(keys=[self._key(object_id)], args=[owner]))
        if not found:
            return None  # unknown, expired, or another owner's: the same answer
        value, size, left_ms = found
        return StoredObject(object_id, owner, json.loads(value), int(size), time.time() + max(int(left_ms), 0) / 1000)
