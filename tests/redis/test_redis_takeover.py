"""Two job managers (two replicas) on one Redis: a replica whose lease was taken over cannot write again.

Replica one runs a campaign and "dies" mid-step (its heartbeat stops); replica two resumes the
campaign once the lease expires and finishes it. When replica one's step finally returns, its save
is refused by the fencing token: the finished record is not overwritten with its stale step, and
it does not mark the campaign failed either.
"""

from __future__ import annotations

import anyio
from mcp.server.subscriptions import InMemorySubscriptionBus

from deepr_mcp.jobs.feed import CampaignFeed
from deepr_mcp.jobs.manager import JobManager
from deepr_mcp.jobs.models import Campaign, CampaignPhase
from deepr_mcp.redis.campaigns import RedisCampaignStore
from deepr_mcp.redis.client import open_checked
from deepr_mcp.redis.lease import RedisLease
from tests.doubles import FakeEngine
from tests.redis.engine import RedisServer


async def test_a_replica_that_lost_its_lease_cannot_overwrite_the_new_holder(redis_server: RedisServer) -> None:
    url, gate = redis_server.url, anyio.Event()
    ran: dict[str, list[str]] = {"one": [], "two": []}
    clients = [await open_checked(url, None, "deepr:") for _ in range(2)]
    leases = [RedisLease(client, url=url, lease_s=1.0) for client in clients]
    stores = [RedisCampaignStore(c, url=url, fence_of=lease.fence_of) for c, lease in zip(clients, leases, strict=True)]
    feeds = [CampaignFeed(store, InMemorySubscriptionBus()) for store in stores]

    def engines(name: str, gated: bool):  # type: ignore[no-untyped-def]
        return lambda campaign: FakeEngine(ran=ran[name], gate=gate if gated else None)

    try:
        with anyio.fail_after(30):
            async with JobManager(stores[0], feeds[0], engines("one", True), lease=leases[0]) as one:
                campaign = await one.start("Why did the cable fail?", budget=1.0, provider="local", model="fake")
                async for seen in feeds[0].follow(campaign.id, "phase"):  # the first step is in flight
                    if seen.phase != CampaignPhase.QUEUED:
                        break
                first = leases[0].held(campaign.id)
                assert first is not None
                leases[0].abandon(campaign.id)  # replica one dies: no more heartbeats
                async with JobManager(stores[1], feeds[1], engines("two", False), lease=leases[1]):
                    done: Campaign = [c async for c in feeds[1].follow(campaign.id, "complete")][-1]
                    gate.set()  # replica one's stuck step returns now, long after it lost the lease
                    await first.released.wait()
        final = await stores[1].get(campaign.id)
        assert done.phase == final.phase == CampaignPhase.COMPLETE and final.error is None
        assert final.research.steps_done == list(FakeEngine.STEPS)  # each step saved once, in order
        assert final.version == done.version  # replica one's stale step and failure were both refused
        assert ran == {"one": ["plan"], "two": list(FakeEngine.STEPS)}
    finally:
        for client in clients:
            await client.aclose()
