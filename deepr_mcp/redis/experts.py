"""Expert records in Redis, shared by every replica with the same ``store.url``.

Layout (under the prefix): ``expert:{id}`` is a hash of ``version`` and the JSON ``record``;
``expert-names`` maps each owner's name (``name_key``) to its id, so a name is unique per owner
across replicas (a bare name, indexed before names were per owner, still counts for its owner).
Each write is one Lua script, so the name check, the version check (compare-and-set) and the write are atomic: two
replicas feeding one expert never lose each other's beliefs. A save's random write id is kept with
the record (its last few, ``writes``) and a create's is the new expert's id, so a script the client
retries after losing its reply recognises its own write and answers "ok", not "stale" or "taken"
(a delete leaves its id in a short-lived tombstone, so its retry answers "deleted", not "not found").
"""

from __future__ import annotations

import redis.asyncio as aioredis

from deepr_mcp.errors import Conflict
from deepr_mcp.experts.models import Expert
from deepr_mcp.experts.store import name_key, name_taken, new_expert, not_found, stale
from deepr_mcp.jobs.models import utcnow
from deepr_mcp.redis.client import REMEMBERED_WRITES, TOMBSTONE_MS, call, write_id

__all__ = ["RedisExpertStore"]

_CREATE = """
local holder = redis.call('HGET', KEYS[2], ARGV[1])
if holder == ARGV[2] then return 'ok' end -- a retry of this very create (its id is new and random)
if holder then return 'taken' end
local before = redis.call('HGET', KEYS[2], ARGV[5]) -- indexed by bare name before names were per owner
if before then
  local record = redis.call('HGET', ARGV[6] .. before, 'record')
  if record and (cjson.decode(record).owner or 'local') == ARGV[7] then return 'taken' end
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], 'version', ARGV[3], 'record', ARGV[4])
return 'ok'
"""

_SAVE = """
local cur, seen = unpack(redis.call('HMGET', KEYS[1], 'version', 'writes'))
if not cur then return {'missing', ''} end
if seen and string.find(' ' .. seen .. ' ', ' ' .. ARGV[3] .. ' ', 1, true) then return {'ok', ARGV[1]} end
if cur ~= ARGV[1] then return {'stale', cur} end
local writes, n = ARGV[3], 1
for id in string.gmatch(seen or '', '%S+') do
  if n >= tonumber(ARGV[4]) then break end
  writes, n = writes .. ' ' .. id, n + 1
end
redis.call('HSET', KEYS[1], 'version', tostring(tonumber(cur) + 1), 'record', ARGV[2], 'writes', writes)
return {'ok', cur}
"""

_DELETE = """
local record = redis.call('HGET', KEYS[1], 'record')
if not record then
  return redis.call('GET', KEYS[3]) == ARGV[2] and 1 or 0 -- 1: a retry of this very delete
end
redis.call('DEL', KEYS[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[2], ARGV[4]) == ARGV[5] then redis.call('HDEL', KEYS[2], ARGV[4]) end -- bare name
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
return 1
"""


class RedisExpertStore:
    """The ``ExpertStore`` of several replicas; every call is one round trip or one script."""

    def __init__(self, client: aioredis.Redis, *, url: str, prefix: str = "deepr:") -> None:
        self._redis = client
        self._url = url
        self._prefix = prefix
        self._names = f"{prefix}expert-names"
        self._create = client.register_script(_CREATE)
        self._save = client.register_script(_SAVE)
        self._delete = client.register_script(_DELETE)

    def _key(self, expert_id: str) -> str:
        return f"{self._prefix}expert:{expert_id}"

    async def get(self, expert_id: str) -> Expert:
        record = await call(self._url, lambda: self._redis.hget(self._key(expert_id), "record"))
        if record is None:
            raise not_found(expert_id)
        return Expert.model_validate_json(record)

    async def create(self, name: str, description: str, owner: str = "local") -> Expert:
        expert = new_expert(name, description, owner)
        keys = [self._key(expert.id), self._names]
        args = [
            name_key(expert.owner, expert.name),
            expert.id,
            str(expert.version),
            expert.model_dump_json(),
            expert.name,
            f"{self._prefix}expert:",
            expert.owner,
        ]
        if await call(self._url, lambda: self._create(keys=keys, args=args)) == "taken":
            raise name_taken(expert.name)
        return expert

    async def save(self, expert: Expert, *, expected_version: int | None = None) -> Expert:
        if expected_version is not None:
            return await self._save_at(expert, expected_version)
        while True:  # a plain save is a compare-and-set on whatever version is current
            try:
                return await self._save_at(expert, (await self.get(expert.id)).version)
            except Conflict:
                continue

    async def _save_at(self, expert: Expert, version: int) -> Expert:
        saved = expert.model_copy(update={"updated_at": utcnow(), "version": version + 1})
        keys = [self._key(expert.id)]
        args = [str(version), saved.model_dump_json(), write_id(), str(REMEMBERED_WRITES)]
        outcome, found = await call(self._url, lambda: self._save(keys=keys, args=args))
        if outcome == "missing":
            raise not_found(expert.id)
        if outcome == "stale":
            raise stale(expert.id, found)
        return saved

    async def list(self) -> list[Expert]:
        ids = await call(self._url, lambda: self._redis.hvals(self._names))
        if not ids:
            return []
        records = await call(self._url, lambda: _records(self._redis, [self._key(i) for i in ids]))
        experts = [Expert.model_validate_json(r) for r in records if r is not None]
        return sorted(experts, key=lambda e: e.name)

    async def delete(self, expert_id: str) -> None:
        expert = await self.get(expert_id)
        keys = [self._key(expert_id), self._names, f"{self._prefix}expert-deleted:{expert_id}"]
        args = [name_key(expert.owner, expert.name), write_id(), str(TOMBSTONE_MS), expert.name, expert_id]
        if not await call(self._url, lambda: self._delete(keys=keys, args=args)):
            raise not_found(expert_id)

    def close(self) -> None:
        """The client is closed by whoever opened it (the composition root), once, asynchronously."""


async def _records(client: aioredis.Redis, keys: list[str]) -> list[str | None]:
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.hget(key, "record")
    return await pipe.execute()
