"""``subscriber_count`` in a campaign's status counts the subscribers of every live replica.

Three real ``serve --http`` processes on one redis-server (2 s lease, so heartbeats every 0.4 s):
B subscribes (handshake era) on replica 2, C listens (2026-07-28) on replica 3; replica 1, which
has no subscriber of its own, reports 2 in ``campaign_status`` and in the status resource. B
unsubscribes: 1. Replica 3 is killed with SIGKILL: its count vanishes once its hash expires.
A hostile entry in Redis (a "replica" whose counts are not numbers, negative or absurd) adds
nothing. Counts are read by polling the server's own answer under a deadline (no event exists).
"""

from __future__ import annotations

import json
import signal
import time
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import pytest
import redis.asyncio as aioredis
from mcp import Client
from mcp.shared.exceptions import MCPError

from deepr_mcp.redis.client import StoreUnavailable, connect
from deepr_mcp.redis.counts import ClusterCounts, _summed
from tests.campaigns import QUESTION
from tests.clients import call
from tests.redis.engine import RedisServer
from tests.samples import with_sample
from tests.servers import config_env, replica_servers

REPLICA = {"store": {"lease_s": 2}}


async def counted(client: Client, cid: str, want: int) -> None:
    """Wait until this client's replica says ``want`` subscribers (tool and resource agree).

    Every replica reads the others' counts at its own heartbeat, so two replicas can disagree
    for up to one interval: each is polled on its own, never assumed to agree at once.
    """
    with anyio.fail_after(30):
        while (await call(client, "campaign_status", {"campaign_id": cid}))["subscriber_count"] != want:  # noqa: ASYNC110
            await anyio.sleep(0.1)
    uri = f"deepr://campaigns/{cid}/status"
    assert json.loads((await client.read_resource(uri)).contents[0].text)["subscriber_count"] == want


async def listen_until_killed(url: str, uri: str, listening: anyio.Event) -> None:
    """C: a 2026-07-28 listen stream on replica 3, held until that replica is killed under it."""
    try:
        async with Client(url, mode="auto") as c, c.listen(resource_subscriptions=[uri]):
            listening.set()
            await anyio.sleep_forever()
    except Exception:  # the replica was killed under the stream: expected here
        await anyio.sleep_forever()


async def test_status_counts_subscribers_on_every_live_replica(tmp_path: Path, redis_server: RedisServer) -> None:
    env = {**config_env(REPLICA), "DEEPR_STORE_URL": redis_server.url}
    dirs = [with_sample(tmp_path / f"replica{n}") for n in (1, 2, 3)]
    redis = aioredis.Redis(host="127.0.0.1", port=redis_server.port, decode_responses=True)
    try:
        with replica_servers(dirs, env) as (procs, urls):
            async with AsyncExitStack() as stack:
                a = await stack.enter_async_context(Client(urls[0], mode="legacy"))
                started = await call(a, "campaign_start", {"question": QUESTION})
                cid, uri = started["campaign_id"], started["resources"]["status"]
                await counted(a, cid, 0)
                # hostile entries written straight into the engine: malformed counts are ignored
                await redis.hset("deepr:subs:evil", mapping={uri: "lots", f"{uri}x": "-5", "junk": "9" * 30})
                await redis.zadd("deepr:subs-replicas", {"evil": time.time() * 1000})
                b = await stack.enter_async_context(Client(urls[1], mode="legacy"))
                await b.subscribe_resource(uri)
                await counted(a, cid, 1)
                async with anyio.create_task_group() as tg:
                    listening = anyio.Event()
                    tg.start_soon(listen_until_killed, urls[2], uri, listening)
                    await listening.wait()
                    await counted(a, cid, 2)
                    await b.unsubscribe_resource(uri)
                    await counted(a, cid, 1)
                    procs[2].send_signal(signal.SIGKILL)  # no shutdown: its count must expire
                    procs[2].wait()
                    await counted(a, cid, 0)
                    tg.cancel_scope.cancel()
                await counted(b, cid, 0)  # replica 2 agrees, by its own next heartbeat
                await b.subscribe_resource(uri)
                await counted(a, cid, 1)  # replicas keep counting after a peer died
    finally:
        await redis.aclose()


def test_other_replicas_counts_are_summed_and_malformed_ones_skipped() -> None:
    replies = [
        ["u:1", "2", "u:2", "1"],
        ["u:1", "3", "u:bad", "x", "u:neg", "-1", "u:huge", "9" * 30, "u:odd"],
        "not a list",
        [["nested"], "1"],
    ]
    assert _summed(replies) == {"u:1": 5, "u:2": 1}
    assert _summed(None) == {} and _summed("garbage") == {}


async def test_counts_survive_an_engine_restart_and_leave_with_a_clean_stop(redis_server: RedisServer) -> None:
    """Heartbeats driven by hand: an outage keeps the last counts heard, the next beat heals an emptied engine.

    Nothing here waits for an expiry, so the hashes live 60 s: with 5 s, a stall of that long between
    one replica's beat and the other's read (a loaded machine) would expire them and fail the test.
    """
    clients = [connect(redis_server.url) for _ in range(2)]
    mine = {"u:1": 2, "u:2": 0}
    one = ClusterCounts(clients[0], url=redis_server.url, local=lambda: dict(mine), ttl_s=60.0)
    two = ClusterCounts(clients[1], url=redis_server.url, local=lambda: {"u:1": 1}, ttl_s=60.0)
    try:
        await one.beat()
        await two.beat()
        await one.beat()
        assert (one.elsewhere("u:1"), two.elsewhere("u:1"), two.elsewhere("u:2")) == (1, 2, 0)
        redis_server.stop()
        with pytest.raises(StoreUnavailable):
            await one.beat()
        assert one.elsewhere("u:1") == 1  # the last counts heard stay while the engine is down
        redis_server.start()  # back, and empty (no persistence)
        await two.beat()
        assert two.elsewhere("u:1") == 0  # one has not written since
        await one.beat()
        await two.beat()
        assert two.elsewhere("u:1") == 2
        async with one:  # entered and left: a clean stop takes its counts away at once
            pass
        await two.beat()
        assert two.elsewhere("u:1") == 0
        mine.update({f"u:many{i}": 1 for i in range(5000)})  # more than one Lua unpack can take at once
        await one.beat()
        await two.beat()
        assert sum(two.elsewhere(f"u:many{i}") for i in range(5000)) == 5000
    finally:
        for client in clients:
            await client.aclose()


async def test_one_principals_cap_counts_its_subscriptions_on_every_replica(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """``subscriptions.max_per_principal`` = 3 with two replicas: two subscriptions on replica 1 leave one
    for the same principal on replica 2 (it used to be three more there: the cap was per replica). The
    refusal says how many are held elsewhere; closing replica 1's session frees them everywhere."""
    config = {**REPLICA, "subscriptions": {"max_per_principal": 3}}
    env = {**config_env(config), "DEEPR_STORE_URL": redis_server.url}
    dirs = [with_sample(tmp_path / f"replica{n}") for n in (1, 2)]
    with replica_servers(dirs, env) as (_, urls):
        async with Client(urls[1], mode="legacy") as b:
            uris = []
            for n in range(4):
                started = await call(b, "campaign_start", {"question": f"{QUESTION} ({n})"})
                uris.append((started["campaign_id"], started["resources"]["status"]))
            async with Client(urls[0], mode="legacy") as a:
                for _, uri in uris[:2]:
                    await a.subscribe_resource(uri)
                await counted(b, uris[1][0], 1)  # replica 2 has heard replica 1's heartbeat
                await b.subscribe_resource(uris[2][1])  # the third: within the cap
                with pytest.raises(MCPError) as refused:
                    await b.subscribe_resource(uris[3][1])
                said = str(refused.value)
                assert "already holds 3 subscriptions" in said and "(2 of them on other replicas)" in said, said
                assert "subscriptions.max_per_principal" in said
            await counted(b, uris[1][0], 0)  # replica 1's session closed: its two are released everywhere
            await b.subscribe_resource(uris[3][1])
