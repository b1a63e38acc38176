"""Redis restarted mid-campaign: calls fail clearly while it is down; the campaign continues once it is back.

Two real replicas on a redis-server with an append-only file (an engine that keeps its data over a
restart, as any production one does). The runner's next save during the outage writes nothing
and stops its task; once the engine is back, the campaign's lease expires and a replica resumes
it from its last saved step, so it completes with every saved step kept and none twice.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import redis.asyncio as aioredis
from mcp import Client

from deepr_mcp.jobs.models import Campaign
from tests.campaigns import QUESTION, follow
from tests.clients import call, text_of
from tests.redis.engine import running_redis
from tests.samples import with_sample
from tests.servers import config_env, replica_servers

REPLICA = {"jobs": {"step_delay_s": 0.4}, "store": {"lease_s": 2}}


async def saved(redis: aioredis.Redis, cid: str) -> Campaign:
    return Campaign.model_validate_json(await redis.hget(f"deepr:campaign:{cid}", "record"))


async def test_campaigns_continue_after_the_engine_restarts(tmp_path: Path) -> None:
    (tmp_path / "redis").mkdir()
    durable = ("--appendonly", "yes", "--appendfsync", "always")
    with running_redis(tmp_path / "redis", *durable) as redis_server:
        env = {**config_env(REPLICA), "DEEPR_STORE_URL": redis_server.url}
        dirs = [with_sample(tmp_path / f"replica{n}") for n in (1, 2)]
        redis = aioredis.Redis(host="127.0.0.1", port=redis_server.port, decode_responses=True)
        try:
            with replica_servers(dirs, env) as (_procs, urls):
                async with Client(urls[0], mode="legacy") as a:
                    cid = (await call(a, "campaign_start", {"question": QUESTION}))["campaign_id"]
                async with Client(urls[1], mode="legacy") as b:
                    with anyio.fail_after(60):
                        since = None
                        while len((before := await saved(redis, cid)).research.steps_done) < 2:
                            args = {"campaign_id": cid, "timeout_s": 10, **({"since": since} if since else {})}
                            since = (await call(b, "campaign_wait", args))["version"]
                    assert not before.terminal, "the campaign ended before the outage: make its steps slower"

                    redis_server.stop()
                    down = await b.call_tool(
                        "tool_call", {"name": "campaign_status", "arguments": {"campaign_id": cid}}
                    )
                    assert (
                        down.is_error and "is unreachable" in text_of(down) and "retry once it is back" in text_of(down)
                    )
                    runner_log = next(dirs[0].glob("server-*.log"))
                    with anyio.fail_after(30):  # the runner's next save met the outage and wrote nothing
                        while "stopped by a store outage" not in runner_log.read_text():  # noqa: ASYNC110 - a log file has no event
                            await anyio.sleep(0.1)
                    redis_server.start()

                    answers = await follow(b, cid)
                    assert answers[-1]["phase"] == "complete", answers[-1]
                final = await saved(redis, cid)
                done = final.research.steps_done
                assert len(done) == len(set(done)), done
                assert done[: len(before.research.steps_done)] == before.research.steps_done
                assert final.research.report and final.error is None
        finally:
            await redis.aclose()
