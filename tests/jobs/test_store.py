"""SqliteCampaignStore: migrations, one-transaction saves with versions, listing, recovery queries."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from deepr_mcp.errors import Conflict, NotFound
from deepr_mcp.jobs.models import Campaign, CampaignPhase
from deepr_mcp.jobs.store import MIGRATIONS, SqliteCampaignStore
from deepr_mcp.research.engine import new_state


def campaign(question: str = "What is tested here?", **fields: object) -> Campaign:
    return Campaign(question=question, budget=1.0, research=new_state(question), **fields)


async def test_create_get_save_bumps_version(tmp_path: Path) -> None:
    store = SqliteCampaignStore(tmp_path / "state.db")
    created = await store.create(campaign())
    assert created.version == 1
    again = await store.get(created.id)
    assert again == created
    again.phase = CampaignPhase.EXECUTING
    saved = await store.save(again)
    assert saved.version == 2 and (await store.get(created.id)).phase == CampaignPhase.EXECUTING
    with pytest.raises(Conflict):
        await store.save(saved, expected_version=1)
    with pytest.raises(Conflict):
        await store.create(saved)
    store.close()


async def test_unknown_ids_are_not_found(tmp_path: Path) -> None:
    store = SqliteCampaignStore(tmp_path / "state.db")
    with pytest.raises(NotFound, match="campaign_list"):
        await store.get("cnope")
    with pytest.raises(NotFound):
        await store.save(campaign())
    with pytest.raises(NotFound):
        await store.delete("cnope")


async def test_list_filters_and_pages_newest_first(tmp_path: Path) -> None:
    store = SqliteCampaignStore(tmp_path / "state.db")
    made = [await store.create(campaign(f"Question number {i}?")) for i in range(5)]
    done = made[0].model_copy(update={"phase": CampaignPhase.COMPLETE})
    await store.save(done)
    page, total = await store.list(limit=2)
    assert total == 5 and [c.id for c in page] == [made[4].id, made[3].id]
    page, _ = await store.list(limit=2, offset=4)
    assert [c.id for c in page] == [made[0].id]
    complete, total = await store.list(phases=[CampaignPhase.COMPLETE])
    assert total == 1 and complete[0].id == made[0].id
    assert {c.id for c in await store.unfinished()} == {c.id for c in made[1:]}


async def test_wal_and_migrations_survive_reopen(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = SqliteCampaignStore(path)
    created = await store.create(campaign())
    assert store.schema_version == len(MIGRATIONS)
    store.close()
    reopened = SqliteCampaignStore(path)
    assert (await reopened.get(created.id)).id == created.id
    assert reopened.schema_version == len(MIGRATIONS)
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


async def test_listing_for_a_principal_shows_its_own_and_what_was_shared(tmp_path: Path) -> None:
    store = SqliteCampaignStore(tmp_path / "state.db")
    mine = await store.create(campaign(owner="ann"))
    shared = await store.create(campaign(owner="bob", shared_with=["ann"]))
    everyone = await store.create(campaign(owner="cy", shared_with=["*"]))
    hidden = await store.create(campaign(owner="bob", shared_with=["anna", "annie"]))
    listed, total = await store.list(visible_to="ann", limit=10)
    assert total == 3 and {c.id for c in listed} == {mine.id, shared.id, everyone.id}
    assert (await store.list(limit=10))[1] == 4
    assert {c.id for c in (await store.list(visible_to="bob", limit=10))[0]} == {shared.id, hidden.id, everyone.id}
    paged, total = await store.list(visible_to="ann", limit=1, offset=2)
    assert total == 3 and len(paged) == 1


async def test_records_from_before_principals_belong_to_the_local_principal(tmp_path: Path) -> None:
    store = SqliteCampaignStore(tmp_path / "state.db")
    old = await store.create(campaign())
    record = old.model_dump(mode="json")
    del record["owner"], record["shared_with"]  # a row written before owner/shared_with existed
    with sqlite3.connect(tmp_path / "state.db") as db:
        db.execute(
            "UPDATE campaigns SET record = ? WHERE id = ?",
            (Campaign.model_validate(record).model_dump_json(exclude={"owner", "shared_with"}), old.id),
        )
    assert (await store.get(old.id)).owner == "local"
    assert [c.id for c in (await store.list(visible_to="local"))[0]] == [old.id]
    assert (await store.list(visible_to="ann"))[1] == 0
    store.close()
