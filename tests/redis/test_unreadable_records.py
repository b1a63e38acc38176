"""A record its reader would reject is never written, and one found on disk (or in Redis) is set aside.

An older version stored a non-finite budget as ``null``; every restart on that data then failed
reading the unfinished campaigns. Both stores now refuse to write such a record, and a stored record
that does not load is quarantined (moved out of the live records, with the reason logged naming the
campaign and the field) so the server starts and serves every other campaign.
"""

from __future__ import annotations

import json
import logging
import math
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis
from mcp import Client

from deepr_mcp.errors import DeeprError, NotFound
from deepr_mcp.jobs.models import CampaignPhase
from deepr_mcp.jobs.store import CampaignStore, SqliteCampaignStore
from deepr_mcp.redis.campaigns import RedisCampaignStore
from deepr_mcp.redis.client import open_checked
from tests.campaigns import QUESTION, follow
from tests.clients import call
from tests.doubles import new_campaign
from tests.redis.stores import store_under_contract
from tests.servers import launch, stop_popen


@pytest.fixture(params=["sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[CampaignStore]:
    async with store_under_contract(
        request, lambda: SqliteCampaignStore(tmp_path / "campaigns.db"), RedisCampaignStore
    ) as opened:
        yield opened


def spoil(where: Path | str, campaign_id: str) -> None:
    """Write what the old bug wrote: the record's budget as null (sqlite file path, or a redis URL)."""
    if isinstance(where, Path):
        with sqlite3.connect(where) as db:
            record = json.loads(db.execute("SELECT record FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()[0])
            db.execute(
                "UPDATE campaigns SET record = ? WHERE id = ?", (json.dumps({**record, "budget": None}), campaign_id)
            )
        return
    with redis.Redis.from_url(where) as r:
        key = f"deepr:campaign:{campaign_id}"
        record = json.loads(r.hget(key, "record"))
        r.hset(key, "record", json.dumps({**record, "budget": None}))


def where_of(store: CampaignStore, tmp_path: Path) -> Path | str:
    return tmp_path / "campaigns.db" if isinstance(store, SqliteCampaignStore) else store._url  # type: ignore[attr-defined]


@pytest.mark.parametrize("budget", [math.inf, -math.inf, math.nan])
async def test_a_record_its_reader_would_reject_is_never_written(store: CampaignStore, budget: float) -> None:
    good = await store.create(new_campaign())
    with pytest.raises(DeeprError, match="budget"):
        await store.create(new_campaign(budget=budget))
    with pytest.raises(DeeprError, match="budget"):
        await store.save(good.model_copy(update={"budget": budget}))
    assert (await store.get(good.id)).budget == good.budget  # the stored record is untouched
    assert [c.id for c in (await store.list())[0]] == [good.id]


async def test_an_unreadable_record_is_quarantined_with_its_reason(
    store: CampaignStore, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    good = await store.create(new_campaign("A readable campaign?"))
    bad = await store.create(new_campaign("An unreadable campaign?"))
    spoil(where_of(store, tmp_path), bad.id)
    with caplog.at_level(logging.WARNING):
        unfinished = await store.unfinished()
    assert [c.id for c in unfinished] == [good.id]
    logged = [r.getMessage() for r in caplog.records if bad.id in r.getMessage()]
    assert logged and "budget" in logged[0] and "quarantin" in logged[0], caplog.text
    with pytest.raises(NotFound, match="quarantined"):
        await store.get(bad.id)
    campaigns, total = await store.list()
    assert [c.id for c in campaigns] == [good.id] and total == 1
    assert bad.id in await store.ids()  # its sandbox is kept (not an orphan) for whoever looks into it
    assert (await store.list(phases=[CampaignPhase.QUEUED]))[1] == 1


async def restart_serves_every_other_campaign(data_dir: Path, env: dict[str, str], where: Path | str) -> None:
    """Seed a readable and a spoiled unfinished campaign, start a server on them, and check it serves."""
    if isinstance(where, Path):
        seeded: CampaignStore = SqliteCampaignStore(where)
    else:
        client = await open_checked(where, None, "deepr:")
        seeded = RedisCampaignStore(client, url=where)
    good = await seeded.create(new_campaign(QUESTION))
    bad = await seeded.create(new_campaign("Why did the second cable fail?"))
    if isinstance(seeded, SqliteCampaignStore):
        seeded.close()
    else:
        await client.aclose()
    spoil(where, bad.id)
    for _ in range(2):  # and a second restart on the same data, after the quarantine
        server = launch(data_dir, **env)
        proc, url = server.proc, server.url
        try:
            async with Client(url, mode="legacy") as c:
                assert (await follow(c, good.id))[-1]["phase"] == "complete"
                listed = await call(c, "campaign_list", {})
                assert [x["campaign_id"] for x in listed["campaigns"]] == [good.id]
                status = await c.call_tool("campaign_status", {"campaign_id": bad.id})
                assert status.is_error and "quarantined" in status.content[0].text
                assert (await call(c, "server_info", {}))["name"] == "deepr-mcp"
        finally:
            stop_popen(proc)
        assert proc.returncode in (0, -15), proc.returncode
    logs = server_logs(data_dir)
    assert f"campaign {bad.id}" in logs and "budget" in logs and "Traceback" not in logs, logs


def server_logs(data_dir: Path) -> str:
    return "\n".join(p.read_text() for p in data_dir.glob("server-*.log"))


async def test_a_restart_on_sqlite_data_with_an_unreadable_record_serves(data_dir: Path) -> None:
    await restart_serves_every_other_campaign(data_dir, {}, data_dir / "campaigns.db")


async def test_a_restart_on_redis_data_with_an_unreadable_record_serves(data_dir: Path, redis_server: object) -> None:
    url = redis_server.url  # type: ignore[attr-defined]
    await restart_serves_every_other_campaign(data_dir, {"DEEPR_STORE_URL": url}, url)
