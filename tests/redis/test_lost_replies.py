"""A compare-and-set write whose reply is lost is retried by the Redis client: the retry must answer success.

The client (``redis/client.connect``) retries a command after a connection error. When the
connection breaks after Redis ran a write script but before its reply arrived, the retry runs the
same script again on a record that already holds the write. Each write carries an id stored with
the record, so the script recognises its own applied write and answers "ok", not "stale".

``DroppingProxy`` makes that loss real and deterministic: a loopback TCP proxy in front of a real
``redis-server`` that, once armed, forwards an ``EVALSHA`` to Redis, lets Redis run it, swallows the
script's reply and closes the client's connection; the client reconnects through the proxy and
retries. The other tests replay the same call through the real scripts (the reply thrown away).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from deepr_mcp.errors import Conflict, NotFound
from deepr_mcp.jobs.models import Campaign, CampaignPhase
from deepr_mcp.jobs.steering import save_carried, write_through
from deepr_mcp.redis.campaigns import RedisCampaignStore
from deepr_mcp.redis.client import connect, open_checked
from deepr_mcp.redis.experts import RedisExpertStore
from deepr_mcp.redis.lease import RedisLease
from tests.doubles import new_campaign
from tests.redis.engine import RedisServer


def command_name(data: bytes) -> bytes:
    """The name of the RESP command ``data`` starts with (``*N``, ``$len``, name), upper-cased."""
    parts = data.split(b"\r\n", 3)
    return parts[2].upper() if len(parts) > 2 and data.startswith(b"*") else b""


class DroppingProxy:
    """Loopback TCP proxy to Redis that can lose the reply of the next N script calls (after they ran)."""

    def __init__(self, port: int) -> None:
        self._port = port
        self.armed = 0
        self.dropped = 0
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task] = set()

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"redis://127.0.0.1:{port}/0"

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection("127.0.0.1", self._port)
        pending = {"script": False}

        def close() -> None:
            client_w.close()
            server_w.close()

        async def upstream() -> None:
            while data := await client_r.read(65536):
                pending["script"] = bool(self.armed) and command_name(data) == b"EVALSHA"  # before Redis answers
                server_w.write(data)
                await server_w.drain()
            close()

        async def downstream() -> None:
            while data := await server_r.read(65536):
                if pending["script"] and not data.startswith(b"-"):  # the script ran (an error is NOSCRIPT)
                    pending["script"] = False
                    self.armed -= 1
                    self.dropped += 1
                    close()  # the write is applied in Redis; its reply never reaches the client
                    return
                pending["script"] = False
                client_w.write(data)
                await client_w.drain()
            close()

        for coro in (upstream(), downstream()):
            task = asyncio.ensure_future(coro)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._server is not None:
            self._server.close()


@pytest.fixture
async def proxied(redis_server: RedisServer) -> AsyncIterator[tuple[DroppingProxy, str]]:
    proxy = DroppingProxy(redis_server.port)
    url = await proxy.start()
    yield proxy, url
    await proxy.stop()


async def test_a_save_whose_reply_is_lost_is_retried_and_answers_success(proxied: tuple[DroppingProxy, str]) -> None:
    proxy, url = proxied
    client = await open_checked(url, None, "deepr:")
    store = RedisCampaignStore(client, url=url)
    try:
        created = await store.create(new_campaign())
        proxy.armed = 1
        moved = created.model_copy(update={"phase": CampaignPhase.EXECUTING})
        saved = await store.save(moved, expected_version=created.version)
        assert proxy.dropped == 1, "the proxy did not drop the reply: the test proved nothing"
        stored = await store.get(created.id)
        assert saved.version == stored.version == created.version + 1  # applied once, reported as applied
        assert stored.phase == CampaignPhase.EXECUTING
        # a create whose reply is lost: the retry finds the record it wrote, not "already exists"
        proxy.armed = 1
        other = await store.create(new_campaign("A second question for the lost reply?"))
        assert proxy.dropped == 2 and (await store.get(other.id)).version == 1
        # a genuinely stale save is still refused
        with pytest.raises(Conflict, match="changed meanwhile"):
            await store.save(moved, expected_version=created.version)
        # a delete whose reply is lost: the retry finds its own tombstone, not "no campaign"
        proxy.armed = 1
        await store.delete(other.id)
        assert proxy.dropped == 3 and other.id not in await store.ids()
        with pytest.raises(NotFound):  # another delete of it is still told it is gone
            await store.delete(other.id)
    finally:
        await client.aclose()


async def test_a_command_write_through_a_lost_reply_is_applied_once(proxied: tuple[DroppingProxy, str]) -> None:
    proxy, url = proxied
    client = await open_checked(url, None, "deepr:")
    store = RedisCampaignStore(client, url=url)
    announced: list[str] = []

    async def announce(campaign_id: str) -> None:
        announced.append(campaign_id)

    def raise_budget(c: Campaign) -> None:  # not idempotent: applied twice would show
        c.budget += 1.0

    try:
        created = await store.create(new_campaign())
        proxy.armed = 1
        saved = await write_through(store, created.id, raise_budget, announce)
        assert proxy.dropped == 1
        stored = await store.get(created.id)
        assert stored.budget == created.budget + 1.0 and stored.version == created.version + 1
        assert saved.version == stored.version and announced == [created.id]
        # the running task's save, reply lost too: one save, the step's result kept
        proxy.armed = 1
        step = stored.model_copy(update={"phase": CampaignPhase.SYNTHESIZING})
        after = await save_carried(store, step, store.save)
        assert proxy.dropped == 2
        final = await store.get(created.id)
        assert final.version == after.version == stored.version + 1 and final.phase == CampaignPhase.SYNTHESIZING
    finally:
        await client.aclose()


async def test_expert_writes_and_a_lease_survive_lost_replies(proxied: tuple[DroppingProxy, str]) -> None:
    proxy, url = proxied
    client = await open_checked(url, None, "deepr:")
    experts = RedisExpertStore(client, url=url)
    lease = RedisLease(client, url=url, lease_s=5.0)
    try:
        proxy.armed = 1
        expert = await experts.create("Submarine cables", "Telegraph history")
        assert proxy.dropped == 1 and (await experts.get(expert.id)).version == 1
        proxy.armed = 1
        saved = await experts.save(expert.model_copy(update={"description": "More"}), expected_version=1)
        assert proxy.dropped == 2 and saved.version == 2 == (await experts.get(expert.id)).version
        proxy.armed = 1  # a plain save (no expected version) is written once, not twice
        await experts.save(saved.model_copy(update={"description": "Even more"}))
        assert proxy.dropped == 3 and (await experts.get(expert.id)).version == 3
        with pytest.raises(Conflict, match="changed meanwhile"):
            await experts.save(saved, expected_version=1)
        other = await experts.create("Amplifiers", "")
        proxy.armed = 1  # a delete whose reply is lost
        await experts.delete(other.id)
        assert proxy.dropped == 4 and [e.name for e in await experts.list()] == ["Submarine cables"]
        with pytest.raises(NotFound):
            await experts.delete(other.id)
        proxy.armed = 1  # the lease taken while its reply is lost is still ours, with its fencing token
        assert await lease.claim("c-lease") is True
        assert proxy.dropped == 5
        fence = await client.get("deepr:fence:c-lease")
        assert fence == "1"
    finally:
        await client.aclose()


def _replayed(script: Any) -> Any:
    """Wrap a registered script so each call runs twice through Redis, the first reply thrown away."""

    async def twice(*, keys: list[str], args: list[str]) -> Any:
        await script(keys=keys, args=args)
        return await script(keys=keys, args=args)

    return twice


async def test_replaying_the_same_write_through_the_real_scripts_answers_success(redis_server: RedisServer) -> None:
    client = connect(redis_server.url)
    store = RedisCampaignStore(client, url=redis_server.url)
    experts = RedisExpertStore(client, url=redis_server.url)
    try:
        store._write_script = _replayed(store._write_script)
        created = await store.create(new_campaign())
        saved = await store.save(created.model_copy(update={"phase": CampaignPhase.EXECUTING}), expected_version=1)
        assert saved.version == 2 == (await store.get(created.id)).version
        experts._create = _replayed(experts._create)
        experts._save = _replayed(experts._save)
        expert = await experts.create("Cables", "")
        assert (await experts.save(expert, expected_version=1)).version == 2 == (await experts.get(expert.id)).version
        with pytest.raises(Conflict, match="you already have an expert named"):  # another create is still refused
            await experts.create("Cables", "again")
    finally:
        await client.aclose()
