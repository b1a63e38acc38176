"""``RedisSubscriptionBus`` on a real redis-server: events cross replicas once, survive an engine restart."""

from __future__ import annotations

import anyio
from mcp.server.subscriptions import ResourcesListChanged, ResourceUpdated, ServerEvent

from deepr_mcp.redis.bus import RedisSubscriptionBus, decode, encode
from deepr_mcp.redis.client import open_checked
from tests.redis.engine import RedisServer


class Heard:
    def __init__(self) -> None:
        self.events: list[ServerEvent] = []
        self.changed = anyio.Event()

    def __call__(self, event: ServerEvent) -> None:
        self.events.append(event)
        self.changed.set()
        self.changed = anyio.Event()

    async def until(self, count: int) -> None:
        with anyio.fail_after(20):
            while len(self.events) < count:
                await self.changed.wait()


async def test_events_cross_replicas_once_and_wait_out_an_engine_restart(redis_server: RedisServer) -> None:
    url = redis_server.url
    clients = [await open_checked(url, None, "deepr:") for _ in range(2)]
    try:
        async with RedisSubscriptionBus(clients[0], url=url) as one, RedisSubscriptionBus(clients[1], url=url) as two:
            heard_one, heard_two = Heard(), Heard()
            one.subscribe(heard_one)
            two.subscribe(heard_two)
            await one.publish(ResourceUpdated(uri="deepr://campaigns/c1/status"))
            await two.publish(ResourcesListChanged())
            await heard_one.until(2)
            await heard_two.until(2)
            assert heard_one.events == [ResourceUpdated(uri="deepr://campaigns/c1/status"), ResourcesListChanged()]
            assert sorted(map(repr, heard_two.events)) == sorted(map(repr, heard_one.events))

            # a malformed entry (another writer, a future version) is skipped, never raised into the reader
            await clients[0].xadd("deepr:events", {"o": "elsewhere", "e": "{not json"})
            await clients[0].xadd("deepr:events", {"o": "elsewhere", "e": '[["u", 3], ["z"], ["u", "deepr://x"]]'})
            await heard_two.until(3)
            await heard_one.until(3)  # both replicas read the stream
            assert heard_one.events[-1] == heard_two.events[-1] == ResourceUpdated(uri="deepr://x")

            redis_server.stop()  # published while the engine is down: delivered locally now, remotely later
            await one.publish(ResourceUpdated(uri="deepr://campaigns/c2/status"))
            await one.publish(ResourceUpdated(uri="deepr://campaigns/c2/status"))  # folded with the first
            assert heard_one.events[-1] == ResourceUpdated(uri="deepr://campaigns/c2/status")
            redis_server.start()
            c2, c3 = (
                ResourceUpdated(uri="deepr://campaigns/c2/status"),
                ResourceUpdated(uri="deepr://campaigns/c3/status"),
            )
            await one.publish(c3)  # and the reader follows on
            with anyio.fail_after(20):
                while c3 not in heard_two.events:
                    await heard_two.changed.wait()
            # c2 arrives, before c3. Whether its two publishes were folded into one entry depends on
            # whether the client's own retry outlasted the restart (then each went out): at most two.
            assert heard_two.events[3:-1] in ([c2], [c2, c2]) and heard_two.events[-1] == c3
            # its own events once each, never echoed back from the stream; local delivery is as in-memory
            assert heard_one.events[2:] == [ResourceUpdated(uri="deepr://x"), c2, c2, c3]
    finally:
        for client in clients:
            await client.aclose()


def test_the_wire_form_round_trips_and_rejects_junk() -> None:
    events: list[ServerEvent] = [ResourceUpdated(uri="deepr://a"), ResourcesListChanged()]
    assert decode(encode(events)) == events
    assert decode("") == decode("{}") == decode('[["u"]]') == decode('[["u", "a", "b"]]') == []
