"""Two replicas on one real Redis: compare-and-set saves, lease exclusivity, takeover, fencing, outages."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import pytest
import redis.asyncio as aioredis

from deepr_mcp.errors import Conflict, DeeprError
from deepr_mcp.jobs.models import CampaignPhase
from deepr_mcp.redis.campaigns import RedisCampaignStore
from deepr_mcp.redis.client import StoreUnavailable, open_checked
from deepr_mcp.redis.lease import RedisLease
from tests.doubles import new_campaign
from tests.redis.engine import RedisServer, running_redis


class Replica:
    """What one replica holds: its own client, store and lease on the shared engine."""

    def __init__(self, client: aioredis.Redis, url: str, lease: RedisLease) -> None:
        self.client, self.lease = client, lease
        self.store = RedisCampaignStore(client, url=url, fence_of=lease.fence_of)


@pytest.fixture
async def replicas(redis_server: RedisServer) -> AsyncIterator[tuple[Replica, Replica]]:
    async with AsyncExitStack() as stack:
        made = []
        for _ in range(2):
            client = await open_checked(redis_server.url, None, "deepr:")
            stack.push_async_callback(client.aclose)
            lease = RedisLease(client, url=redis_server.url, lease_s=1.0)
            made.append(Replica(client, redis_server.url, lease))
        yield made[0], made[1]


async def test_two_replicas_never_overwrite_each_others_step(replicas: tuple[Replica, Replica]) -> None:
    one, two = replicas
    created = await one.store.create(new_campaign())
    seen_by_two = await two.store.get(created.id)
    await one.store.save(created.model_copy(update={"phase": CampaignPhase.EXECUTING}), expected_version=1)
    with pytest.raises(Conflict, match="changed meanwhile"):
        await two.store.save(seen_by_two.model_copy(update={"phase": CampaignPhase.CANCELLED}), expected_version=1)
    assert (await two.store.get(created.id)).phase == CampaignPhase.EXECUTING


async def test_racing_saves_on_one_version_let_exactly_one_through(replicas: tuple[Replica, Replica]) -> None:
    one, two = replicas
    created = await one.store.create(new_campaign())
    outcomes: list[str] = []

    async def attempt(replica: Replica, n: int) -> None:
        try:
            await replica.store.save(created.model_copy(update={"error": f"writer {n}"}), expected_version=1)
            outcomes.append("saved")
        except Conflict:
            outcomes.append("conflict")

    async with anyio.create_task_group() as tg:
        for n in range(10):
            tg.start_soon(attempt, (one, two)[n % 2], n)
    assert sorted(outcomes) == ["conflict"] * 9 + ["saved"]
    assert (await one.store.get(created.id)).version == 2


async def test_a_lease_is_held_by_one_replica_at_a_time(redis_server: RedisServer) -> None:
    """Held past its 2 s lease by the heartbeat alone, while the other replica keeps trying."""
    clients = [await open_checked(redis_server.url, None, "deepr:") for _ in range(2)]
    one, two = (RedisLease(client, url=redis_server.url, lease_s=2.0) for client in clients)
    order: list[str] = []

    async def second() -> None:
        async with two.hold("c1"):
            order.append("two in")

    try:
        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                async with one.hold("c1"):
                    order.append("one in")
                    tg.start_soon(second)
                    held = one.held("c1")
                    assert held is not None
                    for _ in range(600):  # four renewals: past the lease time, only the heartbeat kept it ours
                        if held.renewals >= 4:
                            break
                        await anyio.sleep(0.05)
                    order.append("one out")
        assert order == ["one in", "one out", "two in"] and held.renewals >= 4 and not held.lost
    finally:
        for client in clients:
            await client.aclose()


async def test_a_dead_holder_is_taken_over_and_fenced_off(replicas: tuple[Replica, Replica]) -> None:
    one, two = replicas
    created = await one.store.create(new_campaign())
    taken = anyio.Event()
    async with one.lease.hold(created.id):
        first = one.lease.held(created.id)
        assert first is not None
        step = await one.store.save(created.model_copy(update={"phase": CampaignPhase.EXECUTING}))
        one.lease.abandon(created.id)  # replica one "dies": no more heartbeats

        async def take_over() -> None:
            async with two.lease.hold(created.id):
                held = two.lease.held(created.id)
                assert held is not None and held.fence > first.fence
                taken.set()
                await anyio.sleep_forever()

        async with anyio.create_task_group() as tg:
            tg.start_soon(take_over)
            with anyio.fail_after(10):
                await taken.wait()
            with pytest.raises(Conflict, match="another replica"):  # the stale holder cannot write its next step
                await one.store.save(step.model_copy(update={"error": "stale write"}))
            assert (await two.store.save(step)).version == step.version + 1
            tg.cancel_scope.cancel()
    assert (await two.store.get(created.id)).error is None


async def test_release_deletes_the_lease_only_if_still_ours(replicas: tuple[Replica, Replica]) -> None:
    one, two = replicas
    ready, done = anyio.Event(), anyio.Event()

    async def two_holds() -> None:
        async with two.lease.hold("c2"):
            ready.set()
            await done.wait()

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            async with one.lease.hold("c2"):
                one.lease.abandon("c2")
                tg.start_soon(two_holds)
                await ready.wait()
            held = two.lease.held("c2")  # one has left: its release must not have freed two's lease
            assert held is not None and await two.client.get("deepr:lease:c2") == held.token
            done.set()
    assert await two.client.get("deepr:lease:c2") is None  # two's own release did


async def test_an_engine_restart_fails_calls_clearly_then_they_work_again(redis_server: RedisServer) -> None:
    client = await open_checked(redis_server.url, None, "deepr:")
    store = RedisCampaignStore(client, url=redis_server.url)
    try:
        await store.create(new_campaign())
        redis_server.stop()
        for attempt in (store.list(), store.create(new_campaign()), store.get("cx")):
            with pytest.raises(StoreUnavailable, match=f"127.0.0.1:{redis_server.port}/0 is unreachable"):
                await attempt
        redis_server.start()  # no persistence: it comes back empty, and the same client reconnects
        created = await store.create(new_campaign())
        assert (await store.list()) == ([created], 1)
    finally:
        await client.aclose()


async def test_an_unreachable_engine_at_start_is_a_clear_error(redis_server: RedisServer) -> None:
    url = redis_server.url
    redis_server.stop()
    with pytest.raises(StoreUnavailable, match="unreachable"):
        await open_checked(url, None, "deepr:")


async def test_another_versions_data_is_refused_with_what_to_do(redis_server: RedisServer) -> None:
    client = await open_checked(redis_server.url, None, "deepr:")
    await client.set("deepr:schema", "99")
    await client.aclose()
    with pytest.raises(DeeprError, match=r"layout '99'.*empty database"):
        await open_checked(redis_server.url, None, "deepr:")


async def test_a_missing_or_wrong_password_is_a_clear_error(tmp_path: Path) -> None:
    with running_redis(tmp_path, "--requirepass", "right-password") as server:
        with pytest.raises(StoreUnavailable, match="needs a password: put it in the URL or DEEPR_STORE_PASSWORD"):
            await open_checked(server.url, None, "deepr:")
        with pytest.raises(StoreUnavailable, match="refused the password") as refused:
            await open_checked(server.url, "wrong-password", "deepr:")
        assert "wrong-password" not in str(refused.value)
        in_url = server.url.replace("redis://", "redis://:right-password@")
        for url, password in ((server.url, "right-password"), (in_url, None)):
            client = await open_checked(url, password, "deepr:")
            assert await RedisCampaignStore(client, url=url).ids() == set()
            await client.aclose()
