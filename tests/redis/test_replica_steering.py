"""Steering a campaign from a replica that does not run it: share, budget, pause, resume, cancel.

Two real replicas on one redis-server. Commands given on the replica that does not run the
campaign are compare-and-set writes on the shared record (a pause or cancel is a request the
runner applies at its next step boundary), and the runner's step saves keep them: nothing one
replica writes is overwritten by the other, and the versions followers see only grow.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import redis.asyncio as aioredis
from mcp import Client

from deepr_mcp.jobs.models import Campaign
from tests.campaigns import QUESTION
from tests.clients import call, text_of
from tests.redis.engine import running_redis
from tests.samples import with_sample
from tests.servers import config_env, replica_servers

STEADY = {"jobs": {"step_delay_s": 0.4}, "store": {"lease_s": 2}}


async def record(redis: aioredis.Redis, cid: str) -> Campaign:
    return Campaign.model_validate_json(await redis.hget(f"deepr:campaign:{cid}", "record"))


async def wait_phase(client: Client, cid: str, phase: str, versions: list[int]) -> dict:
    with anyio.fail_after(60):
        while True:
            answer = await call(client, "campaign_wait", {"campaign_id": cid, "until": "phase", "timeout_s": 20})
            versions.append(answer["version"])
            if answer["phase"] == phase:
                return answer
            assert answer["phase"] not in ("complete", "cancelled", "failed"), answer


async def test_commands_on_one_replica_reach_the_runner_on_another(tmp_path: Path) -> None:
    (tmp_path / "redis").mkdir()
    with running_redis(tmp_path / "redis") as redis_server:
        env = {**config_env(STEADY), "DEEPR_STORE_URL": redis_server.url}
        dirs = [with_sample(tmp_path / f"replica{n}") for n in (1, 2)]
        redis = aioredis.Redis(host="127.0.0.1", port=redis_server.port, decode_responses=True)
        try:
            with replica_servers(dirs, env) as (_procs, urls):
                async with Client(urls[0], mode="legacy") as one, Client(urls[1], mode="legacy") as two:
                    cid = (await call(one, "campaign_start", {"question": QUESTION, "budget": 2.0}))["campaign_id"]
                    versions: list[int] = []
                    await wait_phase(two, cid, "executing", versions)  # replica 1 runs it, step after step

                    # replica 2 changes what it may while a step runs on replica 1: both kept
                    await call(two, "campaign_share", {"campaign_id": cid, "principals": ["alice"]})
                    await call(two, "budget_set", {"campaign_id": cid, "budget": 3.0})
                    low = await two.call_tool(
                        "tool_call", {"name": "budget_set", "arguments": {"campaign_id": cid, "budget": 0.0}}
                    )
                    assert low.is_error and "budget" in text_of(low)
                    paused = await call(two, "campaign_pause", {"campaign_id": cid})
                    assert paused["pause_requested"]
                    await wait_phase(two, cid, "paused", versions)
                    held = await record(redis, cid)
                    assert held.shared_with == ["alice"] and held.budget == 3.0 and held.requested == "pause"

                    await call(two, "campaign_resume", {"campaign_id": cid})  # now replica 2 runs it
                    cancelled = await call(one, "campaign_cancel", {"campaign_id": cid})  # from replica 1 this time
                    assert cancelled["cancel_requested"]
                    await wait_phase(one, cid, "cancelled", versions)
                    again = await one.call_tool(
                        "tool_call", {"name": "campaign_pause", "arguments": {"campaign_id": cid}}
                    )
                    assert again.is_error and "cancelled" in text_of(again)
                final = await record(redis, cid)
                assert final.phase.value == "cancelled" and final.shared_with == ["alice"] and final.budget == 3.0
                assert final.error is None and final.research.report  # the partial report of a cancel
                done = final.research.steps_done
                assert len(done) == len(set(done)), done
                assert versions == sorted(versions) and final.version >= versions[-1]
        finally:
            await redis.aclose()
