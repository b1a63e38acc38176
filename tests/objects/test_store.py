"""The in-memory backend: TTL, owners, per-owner limits, unguessable ids."""

from __future__ import annotations

import re

import pytest

from deepr_mcp.objects import MemoryObjectStore


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_ttl_owner_and_ids() -> None:
    clock = Clock()
    store = MemoryObjectStore(ttl_s=60, max_bytes_per_owner=10_000, clock=clock)
    first = await store.put("alice", {"a": 1}, 100)
    second = await store.put("alice", [1, 2], 100)
    assert re.fullmatch(r"obj_[0-9a-f]{24}", first.id) and first.id != second.id
    assert (await store.get("alice", first.id)).value == {"a": 1}
    assert await store.get("bob", first.id) is None  # another principal: as if it did not exist
    clock.now += 61
    assert await store.get("alice", first.id) is None and len(store) == 0


async def test_an_owner_over_its_limit_loses_its_own_oldest_only() -> None:
    store = MemoryObjectStore(ttl_s=600, max_bytes_per_owner=1000, clock=Clock())
    bobs = await store.put("bob", "b", 900)
    olds = [await store.put("alice", i, 400) for i in range(2)]
    newest = await store.put("alice", "new", 400)
    assert await store.get("alice", olds[0].id) is None
    assert await store.get("alice", olds[1].id) is not None and await store.get("alice", newest.id) is not None
    assert await store.get("bob", bobs.id) is not None
    with pytest.raises(ValueError, match="over the per-owner limit"):
        await store.put("alice", "x", 5000)


async def test_all_owners_together_stay_under_the_total_and_the_biggest_holder_pays() -> None:
    """Per-owner limits alone let 40 OAuth subjects x 2 MB all stay stored: the total is bounded too."""
    store = MemoryObjectStore(ttl_s=600, max_bytes_per_owner=2000, max_total_bytes=3000, clock=Clock())
    for i in range(40):
        await store.put(f"subject-{i}", "x", 900)
    assert sum(store._bytes.values()) <= 3000 and len(store) == 3
    quiet = await store.put("quiet", "q", 900)
    flood = [await store.put("flooder", i, 900) for i in range(2)]
    assert sum(store._bytes.values()) <= 3000
    newest = await store.put("flooder", "new", 900)  # the flooder holds the most: its own oldest goes
    assert await store.get("quiet", quiet.id) is not None
    assert await store.get("flooder", flood[0].id) is None and await store.get("flooder", newest.id) is not None
    with pytest.raises(ValueError, match="over the total limit"):
        await MemoryObjectStore(ttl_s=600, max_bytes_per_owner=5000, max_total_bytes=3000).put("a", "x", 4000)
