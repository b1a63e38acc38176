"""A replica killed with SIGKILL mid-campaign: another replica takes the campaign over and finishes it.

Three real ``serve --http`` processes on one redis-server, with a 5 s lease (renewed every 1.7 s:
a survivor that takes the campaign over must stall over 5 s before the third could rightly take it
again, which a loaded machine does not do; a 2 s lease left 1.3 s). Replica 1 runs the
campaign A started there; once two steps are saved it is killed (no shutdown, no release).
Replica 2 or 3 claims the expired lease, resumes from the last saved step and completes: the
steps saved before the kill are kept as they were, no step appears twice, exactly one replica
took over, and followers on the other replicas saw it through.
"""

from __future__ import annotations

import signal
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import redis.asyncio as aioredis
from mcp import Client

from deepr_mcp.jobs.models import Campaign
from tests.campaigns import QUESTION, follow
from tests.clients import call
from tests.redis.engine import RedisServer
from tests.samples import with_sample
from tests.servers import config_env, replica_servers

REPLICA = {"jobs": {"step_delay_s": 0.4}, "store": {"lease_s": 5}}


async def saved(redis: aioredis.Redis, cid: str) -> Campaign:
    """The record as the store holds it (what the killed replica last saved)."""
    return Campaign.model_validate_json(await redis.hget(f"deepr:campaign:{cid}", "record"))


async def test_a_killed_replicas_campaign_completes_elsewhere(tmp_path: Path, redis_server: RedisServer) -> None:
    env = {**config_env(REPLICA), "DEEPR_STORE_URL": redis_server.url}
    dirs = [with_sample(tmp_path / f"replica{n}") for n in (1, 2, 3)]
    redis = aioredis.Redis(host="127.0.0.1", port=redis_server.port, decode_responses=True)
    try:
        with replica_servers(dirs, env) as (procs, urls):
            async with Client(urls[0], mode="legacy") as a:
                cid = (await call(a, "campaign_start", {"question": QUESTION}))["campaign_id"]
            async with AsyncExitStack() as stack:
                d = await stack.enter_async_context(Client(urls[1], mode="auto"))
                watcher = await stack.enter_async_context(Client(urls[2], mode="legacy"))
                with anyio.fail_after(60):
                    since = None
                    while len((before := await saved(redis, cid)).research.steps_done) < 2:
                        args = {"campaign_id": cid, "timeout_s": 10, **({"since": since} if since else {})}
                        since = (await call(d, "campaign_wait", args))["version"]
                assert not before.terminal, "the campaign ended before the kill: make its steps slower"
                procs[0].send_signal(signal.SIGKILL)
                procs[0].wait()
                before = await saved(redis, cid)  # the last step replica 1 saved
                answers = await follow(d, cid)
                assert answers[-1]["phase"] == "complete", answers[-1]
                watched = await call(watcher, "campaign_status", {"campaign_id": cid})
                assert watched["phase"] == "complete"
            final = await saved(redis, cid)
            done = final.research.steps_done
            assert len(done) == len(set(done)), done  # no step saved twice
            assert done[: len(before.research.steps_done)] == before.research.steps_done  # nothing saved was lost
            kept = len(before.research.step_records)
            assert final.research.step_records[:kept] == before.research.step_records
            assert final.research.report and final.version > before.version and final.error is None
            logs = [p.read_text() for d in dirs[1:] for p in d.glob("server-*.log")]
            takeovers = [log.count(f"taking over campaign {cid}") for log in logs]
            assert sorted(takeovers) == [0, 1], takeovers  # exactly one replica took it over
    finally:
        await redis.aclose()
