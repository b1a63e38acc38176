"""A change log in Redis: one stream per kind of state, every replica appends to it and reads it in order."""

from __future__ import annotations

import redis.asyncio as aioredis

from deepr_mcp.redis.client import call

__all__ = ["RedisChangeLog"]


class RedisChangeLog:
    """``XADD``/``XREAD`` on one stream key (e.g. ``deepr:corpus:log``). The stream is the shared
    record of that state: keep the engine persistent in production, as a replica that joins later
    rebuilds its copy from it."""

    def __init__(self, client: aioredis.Redis, *, url: str, key: str) -> None:
        self._client = client
        self._url = url
        self._key = key

    async def append(self, change: str) -> str:
        return await call(self._url, lambda: self._client.xadd(self._key, {"change": change}))

    async def read_after(self, entry_id: str, *, block_ms: int, count: int) -> list[tuple[str, str]]:
        answer = await call(
            self._url, lambda: self._client.xread({self._key: entry_id}, count=count, block=block_ms or None)
        )
        if not answer:
            return []
        _, entries = answer[0]
        return [(eid, fields.get("change", "")) for eid, fields in entries]

    async def last_id(self) -> str:
        newest = await call(self._url, lambda: self._client.xrevrange(self._key, count=1))
        return newest[0][0] if newest else "0"
