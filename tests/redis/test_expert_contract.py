"""One contract for every ``ExpertStore``: SQLite (the default) and Redis behave the same, feeds never lose beliefs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

from deepr_mcp.errors import Conflict, InvalidInput, NotFound
from deepr_mcp.experts.feeding import FeedExperts
from deepr_mcp.experts.models import Expert, ExpertGap
from deepr_mcp.experts.store import ExpertStore, SqliteExpertStore
from deepr_mcp.redis.client import open_checked
from deepr_mcp.redis.experts import RedisExpertStore
from tests.redis.stores import store_under_contract


@pytest.fixture(params=["sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[ExpertStore]:
    async with store_under_contract(
        request, lambda: SqliteExpertStore(tmp_path / "experts.db"), RedisExpertStore
    ) as opened:
        yield opened


async def test_create_get_list_save_and_delete(store: ExpertStore) -> None:
    cables = await store.create("  Submarine   cables ", "Telegraph history", owner="ana")
    assert cables.name == "Submarine cables" and cables.version == 1 and cables.owner == "ana"
    assert await store.get(cables.id) == cables
    other = await store.create("Amplifiers", "")
    assert [e.name for e in await store.list()] == ["Amplifiers", "Submarine cables"]
    saved = await store.save(cables.model_copy(update={"description": "More"}))
    assert saved.version == 2 and (await store.get(cables.id)).description == "More"
    await store.delete(other.id)
    assert [e.id for e in await store.list()] == [cables.id]
    assert (await store.create("Amplifiers", "")).name == "Amplifiers"  # the name is free again


async def test_a_stale_save_is_refused_and_changes_nothing(store: ExpertStore) -> None:
    expert = await store.create("Cables", "")
    await store.save(expert.model_copy(update={"description": "first"}), expected_version=1)
    with pytest.raises(Conflict, match="changed meanwhile"):
        await store.save(expert.model_copy(update={"description": "second"}), expected_version=1)
    got = await store.get(expert.id)
    assert got.description == "first" and got.version == 2


async def test_names_are_unique_and_checked(store: ExpertStore) -> None:
    await store.create("Cables", "")
    with pytest.raises(Conflict, match="you already have an expert named 'Cables'"):
        await store.create("Cables", "again")
    for bad in ("x", "a" * 81, "semi;colon", "<script>"):
        with pytest.raises(InvalidInput, match="2-80 letters"):
            await store.create(bad, "")
    assert len(await store.list()) == 1


async def test_names_are_unique_per_owner_only(store: ExpertStore) -> None:
    mine = await store.create("Cables", "", owner="alice")
    theirs = await store.create("Cables", "", owner="bob")
    assert mine.id != theirs.id
    with pytest.raises(Conflict, match="you already have an expert named 'Cables'"):
        await store.create("Cables", "again", owner="alice")
    await store.delete(mine.id)
    again = await store.create("Cables", "after the delete", owner="alice")
    assert {e.id for e in await store.list()} == {theirs.id, again.id}


def test_sqlite_names_from_before_owners_keep_their_owner(tmp_path: Path) -> None:
    """A store written when names were unique server-wide: its names become their owner's."""
    import sqlite3

    path = tmp_path / "experts.db"
    old = Expert(name="Cables", description="", owner="alice", version=1)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE experts (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, record TEXT NOT NULL)")
        db.execute("INSERT INTO experts VALUES (?, ?, ?)", (old.id, old.name, old.model_dump_json()))
    store = SqliteExpertStore(path)
    try:

        async def check() -> None:
            with pytest.raises(Conflict, match="you already have"):
                await store.create("Cables", "", owner="alice")
            await store.create("Cables", "", owner="bob")
            assert sorted(e.owner for e in await store.list()) == ["alice", "bob"]

        anyio.run(check)
    finally:
        store.close()


async def test_redis_names_from_before_owners_keep_their_owner(redis_server: object) -> None:
    url = redis_server.url  # type: ignore[attr-defined]
    client = await open_checked(url, None, "deepr:")
    old = Expert(name="Cables", description="", owner="alice", version=1)
    await client.hset(f"deepr:expert:{old.id}", mapping={"version": "1", "record": old.model_dump_json()})
    await client.hset("deepr:expert-names", "Cables", old.id)  # the bare name, as indexed before
    store = RedisExpertStore(client, url=url)
    with pytest.raises(Conflict, match="you already have"):
        await store.create("Cables", "", owner="alice")
    theirs = await store.create("Cables", "", owner="bob")
    await store.delete(old.id)
    assert not await client.hexists("deepr:expert-names", "Cables")
    assert [e.id for e in await store.list()] == [theirs.id]
    await client.aclose()


async def test_unknown_ids_are_not_found(store: ExpertStore) -> None:
    expert = await store.create("Cables", "")
    await store.delete(expert.id)
    for attempt in (store.get(expert.id), store.delete(expert.id), store.save(expert)):
        with pytest.raises(NotFound, match="no expert"):
            await attempt


class Fed:
    """A finished campaign as the hook reads it (``absorb`` is replaced: one gap per campaign)."""

    def __init__(self, expert_id: str, n: int) -> None:
        self.expert_id, self.n = expert_id, n


class BothReadFirst:
    """The store, except the first two reads wait for each other: two feeds surely race on one version."""

    def __init__(self, store: ExpertStore) -> None:
        self.store, self.reads, self.both = store, 0, anyio.Event()
        self.conflicts = 0

    async def get(self, expert_id: str) -> Expert:
        expert = await self.store.get(expert_id)
        self.reads += 1
        if self.reads == 2:
            self.both.set()
        if self.reads <= 2:
            await self.both.wait()
        return expert

    async def save(self, expert: Expert, *, expected_version: int | None = None) -> Expert:
        try:
            return await self.store.save(expert, expected_version=expected_version)
        except Conflict:
            self.conflicts += 1
            raise


async def test_racing_feeds_of_one_expert_lose_nothing(store: ExpertStore, monkeypatch: pytest.MonkeyPatch) -> None:
    expert = await store.create("Cables", "")

    def absorb(current: Expert, campaign: Fed) -> Expert:  # like absorb: add to what is there, never replace
        gap = ExpertGap(question=f"q{campaign.n}", reason="open", campaign_id=f"c{campaign.n}")
        return current.model_copy(update={"gaps": [*current.gaps, gap]})

    class Feed:
        async def announce_expert(self, expert_id: str) -> None:
            await anyio.lowlevel.checkpoint()

    monkeypatch.setattr("deepr_mcp.experts.feeding.absorb", absorb)
    racing = BothReadFirst(store)
    async with anyio.create_task_group() as tg:  # two replicas' hooks finishing at once
        for n in range(2):
            tg.start_soon(FeedExperts(racing, Feed()), Fed(expert.id, n))  # type: ignore[arg-type]
    got = await store.get(expert.id)
    assert racing.conflicts == 1  # the second save was refused, re-read, and absorbed into the first's
    assert sorted(g.question for g in got.gaps) == ["q0", "q1"] and got.version == 3
