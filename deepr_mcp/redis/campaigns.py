"""Campaign records in Redis, shared by every replica with the same ``store.url``.

Layout (all under one prefix): ``campaign:{id}`` is a hash holding the JSON ``record`` and the
fields lists filter on (``version``, ``phase``, ``owner``, ``shared``); ``campaigns`` is a sorted
set of ids scored by minus the creation time in microseconds, so ascending order is newest first
and ties fall to the id, as SQLite's ``ORDER BY created_at DESC, id``. An unfiltered page is a
range of that set; a filtered one (phases, ``visible_to``) scans the set's small hash fields in
one script, never the JSON records (about 8 ms per 2,000 campaigns). Writes are one Lua script
each, so a version check (compare-and-set) and the write are atomic: two replicas never overwrite
each other's step, and a create with ``max_open`` counts the owner's unfinished campaigns in the
same script (a scan of the small hash fields, as a filtered list: about 12 ms per 5,000 campaigns,
paid by campaign_start only), so concurrent starts on any replicas never pass a principal's cap
together. Each write carries a random id, and the record keeps the ids of its last few writes
(``writes``): when the client retries a script whose reply was lost after it ran, the script finds
its own id and answers "ok" instead of "stale" or "exists" (a delete leaves its id in a short-lived
tombstone for the same reason). A save made while this replica holds the campaign's lease also
checks the lease's fencing token, so a replica whose lease was taken over cannot write again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import redis.asyncio as aioredis

from deepr_mcp.errors import Conflict, NotFound
from deepr_mcp.jobs.lease import LeaseLost
from deepr_mcp.jobs.models import Campaign, CampaignPhase, utcnow
from deepr_mcp.jobs.records import UnreadableRecord, decode, encode, gone, quarantined
from deepr_mcp.jobs.store import OPEN_PHASES, OpenLimitReached
from deepr_mcp.redis.client import REMEMBERED_WRITES, TOMBSTONE_MS, call, write_id

FenceOf = Callable[[str], "tuple[str, int] | None"]
"""For a campaign id: (fence key, token) while this replica holds its lease, else None."""

_WRITE = """
local cur, seen = unpack(redis.call('HMGET', KEYS[1], 'version', 'writes'))
if cur and seen and string.find(' ' .. seen .. ' ', ' ' .. ARGV[11] .. ' ', 1, true) then
  return {'ok', ARGV[3]}
end
if ARGV[1] == 'create' and cur then return {'exists', cur} end
if ARGV[1] == 'save' and not cur then return {'missing', ''} end
if ARGV[1] == 'create' and ARGV[13] ~= '' then
  local open, held = {}, 0
  for p in string.gmatch(ARGV[14], '[^,]+') do open[p] = true end
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    local f = redis.call('HMGET', ARGV[15] .. id, 'phase', 'owner')
    if f[1] and open[f[1]] and f[2] == ARGV[6] then held = held + 1 end
  end
  if held >= tonumber(ARGV[13]) then return {'full', tostring(held)} end
end
if ARGV[2] ~= '' and cur and cur ~= ARGV[2] then return {'stale', cur} end
if ARGV[9] ~= '' then
  local fence = redis.call('GET', KEYS[3])
  if fence ~= ARGV[9] then return {'fenced', fence or ''} end
end
local writes, n = ARGV[11], 1
for id in string.gmatch(seen or '', '%S+') do
  if n >= tonumber(ARGV[12]) then break end
  writes, n = writes .. ' ' .. id, n + 1
end
redis.call('HSET', KEYS[1], 'version', ARGV[3], 'record', ARGV[4], 'phase', ARGV[5], 'owner', ARGV[6],
  'shared', ARGV[7], 'writes', writes)
redis.call('ZADD', KEYS[2], ARGV[8], ARGV[10])
return {'ok', ARGV[3]}
"""

_LIST = """
local offset, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
if ARGV[1] == '' and ARGV[2] == '' and ARGV[6] == '' then
  local page = {}
  if limit > 0 then
    for _, id in ipairs(redis.call('ZRANGE', KEYS[1], offset, offset + limit - 1)) do
      page[#page + 1] = id
      page[#page + 1] = redis.call('HGET', ARGV[5] .. id, 'record')
    end
  end
  return {redis.call('ZCARD', KEYS[1]), page}
end
local phases, who = {}, ARGV[2]
for p in string.gmatch(ARGV[1], '[^,]+') do phases[p] = true end
local any_phase = ARGV[1] == ''
local total, page = 0, {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local f = redis.call('HMGET', ARGV[5] .. id, 'phase', 'owner', 'shared')
  local ok = f[1] and (any_phase or phases[f[1]])
  if ok and ARGV[6] ~= '' then ok = f[2] == ARGV[6] end
  if ok and who ~= '' then
    ok = f[2] == who
    if not ok then
      for name in string.gmatch(f[3] or '', '[^\\n]+') do
        if name == who or name == '*' then ok = true break end
      end
    end
  end
  if ok then
    if total >= offset and #page < 2 * limit then
      page[#page + 1] = id
      page[#page + 1] = redis.call('HGET', ARGV[5] .. id, 'record')
    end
    total = total + 1
  end
end
return {total, page}
"""

_QUARANTINE = """
if redis.call('HGET', KEYS[1], 'record') ~= ARGV[2] then return 0 end -- rewritten meanwhile: leave it
redis.call('HSET', KEYS[3], 'record', ARGV[2], 'reason', ARGV[3], 'at', ARGV[4])
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
return 1
"""

_DELETE = """
if redis.call('DEL', KEYS[1]) == 0 then
  return redis.call('GET', KEYS[3]) == ARGV[2] and 1 or 0 -- 1: a retry of this very delete
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
return 1
"""


class RedisCampaignStore:
    """The ``CampaignStore`` of several replicas; every call is one round trip or one script."""

    def __init__(
        self, client: aioredis.Redis, *, url: str, prefix: str = "deepr:", fence_of: FenceOf | None = None
    ) -> None:
        self._redis = client
        self._url = url
        self._prefix = prefix
        self._index = f"{prefix}campaigns"
        self._fence_of = fence_of
        self._write_script = client.register_script(_WRITE)
        self._list_script = client.register_script(_LIST)
        self._delete_script = client.register_script(_DELETE)
        self._quarantine_script = client.register_script(_QUARANTINE)
        self._quarantined = f"{prefix}campaigns-quarantined"

    def _key(self, campaign_id: str) -> str:
        return f"{self._prefix}campaign:{campaign_id}"

    def _aside(self, campaign_id: str) -> str:
        return f"{self._prefix}campaign-quarantined:{campaign_id}"

    async def get(self, campaign_id: str) -> Campaign:
        record = await call(self._url, lambda: self._redis.hget(self._key(campaign_id), "record"))
        if record is None:
            reason = await call(self._url, lambda: self._redis.hget(self._aside(campaign_id), "reason"))
            if reason is not None:
                raise gone(campaign_id, reason)
            raise NotFound(f"no campaign {campaign_id!r}; campaign_list shows the ids that exist")
        return await self._load(campaign_id, record)

    async def _load(self, campaign_id: str, record: str) -> Campaign:
        """The record, or (quarantined, logged) ``NotFound`` saying why it is no longer served."""
        try:
            return decode(campaign_id, record)
        except UnreadableRecord as bad:
            await self._quarantine(bad, record)
            raise gone(campaign_id, bad.reason) from None

    async def _quarantine(self, bad: UnreadableRecord, record: str) -> None:
        """Move the record aside atomically, unless a replica rewrote it meanwhile."""
        keys = [self._key(bad.campaign_id), self._index, self._aside(bad.campaign_id), self._quarantined]
        args = [bad.campaign_id, record, bad.reason, utcnow().isoformat()]
        if await call(self._url, lambda: self._quarantine_script(keys=keys, args=args)):
            quarantined(bad.campaign_id, bad.reason, f"the Redis hash {keys[2]}")

    async def _write(
        self, campaign: Campaign, expected_version: int | None, mode: str, max_open: int | None = None
    ) -> Campaign:
        updated = campaign.model_copy(update={"version": campaign.version + 1, "updated_at": utcnow()})
        fence = self._fence_of(campaign.id) if self._fence_of and mode == "save" else None
        fence_key, token = fence if fence else ("", None)
        score = -int(updated.created_at.timestamp() * 1_000_000)
        args = [
            mode,
            "" if expected_version is None else str(expected_version),
            str(updated.version),
            encode(updated),
            updated.phase.value,
            updated.owner,
            "\n".join(updated.shared_with),
            str(score),
            "" if token is None else str(token),
            updated.id,
            write_id(),
            str(REMEMBERED_WRITES),
            "" if max_open is None else str(max_open),
            ",".join(p.value for p in OPEN_PHASES),
            f"{self._prefix}campaign:",
        ]
        keys = [self._key(campaign.id), self._index, fence_key or self._index]
        outcome, found = await call(self._url, lambda: self._write_script(keys=keys, args=args))
        if outcome == "exists":
            raise Conflict(f"campaign {campaign.id!r} already exists")
        if outcome == "full":
            raise OpenLimitReached(updated.owner, int(found))
        if outcome == "missing":
            raise NotFound(f"no campaign {campaign.id!r}")
        if outcome == "stale":
            raise Conflict(f"campaign {campaign.id!r} changed meanwhile (version {found})")
        if outcome == "fenced":
            raise LeaseLost(
                f"campaign {campaign.id!r} is now run by another replica (lease token {found or 'expired'}, "
                f"this replica held {token}); this replica stops without writing"
            )
        return updated

    async def create(self, campaign: Campaign, *, max_open: int | None = None) -> Campaign:
        return await self._write(campaign, None, "create", max_open)

    async def save(self, campaign: Campaign, *, expected_version: int | None = None) -> Campaign:
        return await self._write(campaign, expected_version, "save")

    async def list(
        self,
        *,
        phases: Sequence[CampaignPhase] | None = None,
        limit: int = 20,
        offset: int = 0,
        visible_to: str | None = None,
        owner: str | None = None,
    ) -> tuple[list[Campaign], int]:
        """Newest first; with ``visible_to``, that principal's campaigns and those shared with it (or ``*``);
        with ``owner``, only that principal's own."""
        args = [
            ",".join(p.value for p in phases or ()),
            visible_to or "",
            str(max(offset, 0)),
            str(max(limit, 0)),
            f"{self._prefix}campaign:",
            owner or "",
        ]
        total, records = await call(self._url, lambda: self._list_script(keys=[self._index], args=args))
        campaigns = []
        for campaign_id, record in zip(records[::2], records[1::2], strict=True):  # id, record, id, record...
            if record is None:  # indexed but gone (deleted between the two reads of a replica's script)
                total -= 1
                continue
            try:
                campaigns.append(await self._load(campaign_id, record))
            except NotFound:  # quarantined just now: one unreadable record never hides the others
                total -= 1
        return campaigns, int(total)

    async def unfinished(self) -> list[Campaign]:
        campaigns, _ = await self.list(phases=OPEN_PHASES, limit=1_000_000)
        return sorted(campaigns, key=lambda c: (c.created_at, c.id))

    async def delete(self, campaign_id: str) -> None:
        keys = [self._key(campaign_id), self._index, f"{self._prefix}campaign-deleted:{campaign_id}"]
        args = [campaign_id, write_id(), str(TOMBSTONE_MS)]
        if not await call(self._url, lambda: self._delete_script(keys=keys, args=args)):
            raise NotFound(f"no campaign {campaign_id!r}")

    async def ids(self) -> set[str]:
        """Every campaign id, quarantined ones too (their sandboxes are kept, not orphans)."""
        live = await call(self._url, lambda: self._redis.zrange(self._index, 0, -1))
        return set(live) | set(await call(self._url, lambda: self._redis.smembers(self._quarantined)))

    def close(self) -> None:
        """The client is closed by whoever opened it (the composition root), once, asynchronously."""
