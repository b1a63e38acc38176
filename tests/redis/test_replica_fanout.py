"""Three real ``deepr-mcp serve --http --store redis://...`` replicas share one campaign's feed.

Agent A starts a campaign on replica 1; agent B (handshake era, ``resources/subscribe``) on
replica 2 and agent C (2026-07-28, ``subscriptions/listen``) on replica 3 each hear every phase
through ``complete``; agent D's ``campaign_wait`` on replica 2 returns on each change.
"""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import mcp_types as types
from mcp import Client

from tests.campaigns import QUESTION, follow, pause
from tests.clients import Recorder, call
from tests.redis.engine import RedisServer
from tests.samples import with_sample
from tests.servers import config_env, http_server

STEPPED = config_env({"jobs": {"step_delay_s": 0.8}})
"""Each step's phase stays on show for a while, so a reader of every notification can see it.

Notifications only say "re-read me": an agent sees a phase if its re-read (bus, push, HTTP read on
a loaded machine with three servers) lands while the phase is current. Synthesizing is one step
long, so its step delay is that agent's whole margin: 0.3 s was thin under load, 0.8 s is not.
"""


async def phase_of(client: Client, uri: str) -> str:
    return json.loads((await client.read_resource(uri)).contents[0].text)["phase"]


def note(phases: list[str], phase: str) -> None:
    if phases[-1:] != [phase]:
        phases.append(phase)


async def handshake_agent(base: str, uri: str, phases: list[str], ready: anyio.Event) -> None:
    """B: subscribes the handshake-era way and reads the status after every notification."""
    recorder = Recorder()
    async with Client(f"{base}/mcp", mode="legacy", message_handler=recorder) as client:
        await client.subscribe_resource(uri)
        ready.set()
        seen = 0

        def updates(r: Recorder) -> int:
            return sum(isinstance(n, types.ResourceUpdatedNotification) for n in r.notifications)

        while not phases or phases[-1] != "complete":
            await recorder.wait_for(lambda r, after=seen: updates(r) > after)
            seen = updates(recorder)
            note(phases, await phase_of(client, uri))


async def listen_agent(base: str, uri: str, phases: list[str], ready: anyio.Event) -> None:
    """C: a 2026-07-28 ``subscriptions/listen`` stream, reading the status on each event."""
    async with Client(f"{base}/mcp", mode="auto") as client:
        async with client.listen(resource_subscriptions=[uri]) as events:
            ready.set()
            async for event in events:
                assert event.uri == uri
                note(phases, await phase_of(client, uri))
                if phases[-1] == "complete":
                    return


async def test_every_replica_hears_every_phase(tmp_path: Path, redis_server: RedisServer) -> None:
    dirs = [with_sample(tmp_path / f"replica{n}") for n in (1, 2, 3)]  # only Redis is shared
    store = ("--store", redis_server.url)
    async with AsyncExitStack() as stack:
        one, two, three = [await stack.enter_async_context(http_server(d, *store, **STEPPED)) for d in dirs]
        a = await stack.enter_async_context(Client(f"{one}/mcp", mode="legacy"))
        d = await stack.enter_async_context(Client(f"{two}/mcp", mode="auto"))
        started = await call(a, "campaign_start", {"question": QUESTION})
        cid, uri = started["campaign_id"], started["resources"]["status"]
        await pause(a, cid)  # held still while B and C subscribe on the other replicas
        # D's first wait counts from the paused version, so however late it arrives (three servers on a loaded
        # machine) it returns on the resume, not on whatever phase is current by then
        paused = (await call(d, "campaign_status", {"campaign_id": cid}))["version"]
        seen_b: list[str] = []
        seen_c: list[str] = []
        with anyio.fail_after(90):
            async with anyio.create_task_group() as tg:
                ready_b, ready_c = anyio.Event(), anyio.Event()
                tg.start_soon(handshake_agent, two, uri, seen_b, ready_b)
                tg.start_soon(listen_agent, three, uri, seen_c, ready_c)
                await ready_b.wait()
                await ready_c.wait()
                await call(a, "campaign_resume", {"campaign_id": cid})
                answers = await follow(d, cid, since=paused)  # D: campaign_wait on replica 2
        truth = [a_["phase"] for a_ in answers]
        assert truth[-1] == "complete" and len(answers) >= 3  # it woke on changes, not only at the end
        for seen in (seen_b, seen_c):
            assert seen[-1] == "complete"
            assert {"executing", "synthesizing", "complete"} <= set(seen), seen
        status = await call(d, "campaign_status", {"campaign_id": cid})
        assert status["phase"] == "complete"
