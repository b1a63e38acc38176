"""One contract for every ``CampaignStore``: SQLite (the default) and Redis are held to the same behaviour."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest

from deepr_mcp.errors import Conflict, NotFound
from deepr_mcp.jobs.models import Campaign, CampaignPhase
from deepr_mcp.jobs.store import CampaignStore, OpenLimitReached, SqliteCampaignStore
from deepr_mcp.redis.campaigns import RedisCampaignStore
from deepr_mcp.redis.client import open_checked
from tests.doubles import new_campaign
from tests.redis.stores import store_under_contract


@asynccontextmanager
async def stores_on_one_backing(kind: str, tmp_path: Path, url: str | None) -> AsyncIterator[list[CampaignStore]]:
    """Two stores on one database, as two replicas (Redis) or two processes on one file (SQLite) hold them."""
    if kind == "sqlite":
        pair = [SqliteCampaignStore(tmp_path / "campaigns.db") for _ in range(2)]
        yield list(pair)
        for one in pair:
            one.close()
        return
    assert url is not None
    clients = [await open_checked(url, None, "deepr:") for _ in range(2)]
    yield [RedisCampaignStore(client, url=url) for client in clients]
    for client in clients:
        await client.aclose()


@pytest.fixture(params=["sqlite", "redis"])
async def replicas(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[list[CampaignStore]]:
    url = request.getfixturevalue("redis_server").url if request.param == "redis" else None
    async with stores_on_one_backing(request.param, tmp_path, url) as pair:
        yield pair


@pytest.fixture(params=["sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[CampaignStore]:
    async with store_under_contract(
        request, lambda: SqliteCampaignStore(tmp_path / "campaigns.db"), RedisCampaignStore
    ) as opened:
        yield opened


def made(question: str = "What does the contract hold?", **fields: Any) -> Campaign:
    return new_campaign(question, **fields)


async def test_create_get_save_bumps_the_version_and_refuses_stale_saves(store: CampaignStore) -> None:
    created = await store.create(made())
    assert created.version == 1 and await store.get(created.id) == created
    moved = created.model_copy(update={"phase": CampaignPhase.EXECUTING})
    saved = await store.save(moved, expected_version=1)
    assert saved.version == 2 and (await store.get(created.id)).phase == CampaignPhase.EXECUTING
    with pytest.raises(Conflict, match="changed meanwhile"):
        await store.save(saved, expected_version=1)
    with pytest.raises(Conflict, match="already exists"):
        await store.create(saved)
    assert (await store.get(created.id)).version == 2  # the refused writes left nothing behind


async def test_unknown_ids_are_not_found(store: CampaignStore) -> None:
    with pytest.raises(NotFound, match="campaign_list"):
        await store.get("cnope")
    with pytest.raises(NotFound):
        await store.save(made())
    with pytest.raises(NotFound):
        await store.delete("cnope")
    assert await store.ids() == set()


async def test_list_is_newest_first_with_phases_paging_and_totals(store: CampaignStore) -> None:
    created = [await store.create(made(f"Question number {i}?")) for i in range(5)]
    await store.save(created[0].model_copy(update={"phase": CampaignPhase.COMPLETE}))
    await store.save(created[2].model_copy(update={"phase": CampaignPhase.FAILED}))
    page, total = await store.list(limit=2)
    assert total == 5 and [c.id for c in page] == [created[4].id, created[3].id]
    page, total = await store.list(limit=2, offset=4)
    assert total == 5 and [c.id for c in page] == [created[0].id]
    assert await store.list(limit=5, offset=9) == ([], 5)
    done, total = await store.list(phases=[CampaignPhase.COMPLETE, CampaignPhase.FAILED])
    assert total == 2 and [c.id for c in done] == [created[2].id, created[0].id]
    assert [c.id for c in await store.unfinished()] == [created[1].id, created[3].id, created[4].id]


async def test_equal_creation_times_fall_back_to_the_id(store: CampaignStore) -> None:
    at = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    ids = ["cb", "ca", "cc"]
    for cid in ids:
        await store.create(made(id=cid, created_at=at))
    listed, _ = await store.list()
    assert [c.id for c in listed] == sorted(ids)


async def test_visible_to_shows_own_shared_and_everyone_campaigns(store: CampaignStore) -> None:
    mine = await store.create(made(owner="ann"))
    shared = await store.create(made(owner="bob", shared_with=["ann"]))
    everyone = await store.create(made(owner="cy", shared_with=["*"]))
    await store.create(made(owner="bob", shared_with=["anna", "annie"]))  # near names do not match
    await store.create(made(owner="annie"))
    listed, total = await store.list(visible_to="ann", limit=10)
    assert total == 3 and [c.id for c in listed] == [everyone.id, shared.id, mine.id]
    listed, total = await store.list(visible_to="ann", limit=1, offset=1)
    assert total == 3 and [c.id for c in listed] == [shared.id]
    running, total = await store.list(visible_to="ann", phases=[CampaignPhase.COMPLETE])
    assert (running, total) == ([], 0)
    assert (await store.list(visible_to="nobody"))[1] == 1  # only the one shared with everyone


async def test_owner_counts_only_that_principals_own_campaigns(store: CampaignStore) -> None:
    mine = [await store.create(made(owner="ann")) for _ in range(2)]
    await store.create(made(owner="bob", shared_with=["ann"]))  # shared with ann, but not hers
    await store.create(made(owner="annie"))
    done = mine[0].model_copy(update={"phase": CampaignPhase.COMPLETE})
    await store.save(done)
    assert (await store.list(owner="ann", limit=0)) == ([], 2)  # a count without records
    open_phases = [p for p in CampaignPhase if p != CampaignPhase.COMPLETE]
    listed, total = await store.list(owner="ann", phases=open_phases)
    assert total == 1 and [c.id for c in listed] == [mine[1].id]


async def test_delete_removes_the_record_and_its_listing(store: CampaignStore) -> None:
    keep, gone = await store.create(made()), await store.create(made())
    await store.delete(gone.id)
    assert await store.ids() == {keep.id}
    assert [c.id for c in (await store.list())[0]] == [keep.id]
    with pytest.raises(NotFound):
        await store.get(gone.id)


async def test_records_round_trip_exactly(store: CampaignStore) -> None:
    odd = made('Quotes " and \\ backslashes, newlines\n and émoji 🧪?', owner="o.n-e@x", shared_with=["a", "*"])
    created = await store.create(odd)
    assert await store.get(created.id) == created


async def test_a_capped_create_admits_at_most_the_cap_under_concurrent_starts(replicas: list[CampaignStore]) -> None:
    """Issue 31 item 14: the count and the insert are one step, so twelve starts at once of one principal
    (alternating between two replicas) leave exactly three campaigns, and the other nine are refused."""
    admitted: list[Campaign] = []
    refused: list[OpenLimitReached] = []

    async def start(n: int) -> None:
        try:
            admitted.append(await replicas[n % 2].create(made(f"Concurrent start {n}?", owner="ann"), max_open=3))
        except OpenLimitReached as full:
            refused.append(full)

    with anyio.fail_after(30):
        async with anyio.create_task_group() as starts:
            for n in range(12):
                starts.start_soon(start, n)
    assert len(admitted) == 3 and len(refused) == 9, (len(admitted), [r.open_now for r in refused])
    assert {r.open_now for r in refused} == {3} and {r.owner for r in refused} == {"ann"}
    assert (await replicas[0].list(owner="ann", limit=0))[1] == 3  # nothing half-written by a refusal
    assert await replicas[1].create(made(owner="bob"), max_open=3)  # another principal is not held back
    await replicas[1].save(admitted[0].model_copy(update={"phase": CampaignPhase.COMPLETE}))
    assert await replicas[0].create(made(owner="ann"), max_open=3)  # a finished one frees its place
    with pytest.raises(OpenLimitReached):
        await replicas[1].create(made(owner="ann"), max_open=3)
    assert await replicas[0].create(made(owner="ann"))  # no cap asked: none applied (restores, imports)
