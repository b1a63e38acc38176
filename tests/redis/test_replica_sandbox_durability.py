"""Sandboxes across replicas (issue 31 items 18 and 19), with real ``serve --http`` processes on one
redis-server.

18: a campaign finished on one replica is never announced complete on another before its final
report can be read there: ``campaign_wait`` on replica 2 says ``complete`` and ``sandbox_extract``
there, at once, has the report replica 1 wrote.
19: a ``sandbox_write`` is in Redis before it is acknowledged: the replica that took it is killed
with SIGKILL right after the answer, and the survivor still gets the note.
"""

from __future__ import annotations

import signal
from pathlib import Path

import anyio
from mcp import Client

from tests.campaigns import QUESTION
from tests.clients import call
from tests.redis.engine import RedisServer
from tests.samples import with_sample
from tests.servers import config_env, replica_servers


async def finished(client: Client, cid: str) -> dict:
    with anyio.fail_after(60):
        while (answer := await call(client, "campaign_wait", {"campaign_id": cid, "until": "complete"}))["timed_out"]:
            pass
    return answer


async def test_complete_on_another_replica_means_its_report_is_readable_there(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    env = {**config_env({}), "DEEPR_STORE_URL": redis_server.url}
    dirs = [with_sample(tmp_path / f"replica{n}") for n in (1, 2)]
    with replica_servers(dirs, env) as (_, urls):
        async with Client(urls[0], mode="legacy") as runner, Client(urls[1], mode="legacy") as reader:
            for n in range(3):  # the report's arrival used to race the announcement: several rounds
                cid = (await call(runner, "campaign_start", {"question": f"{QUESTION} ({n})"}))["campaign_id"]
                assert (await finished(reader, cid))["phase"] == "complete"
                extracted = await call(reader, "sandbox_extract", {"campaign_id": cid})
                assert extracted["final_report"], extracted  # readable the moment it is announced
                report = await call(runner, "sandbox_extract", {"campaign_id": cid})
                assert extracted["final_report"] == report["final_report"]


async def test_a_saved_note_survives_its_replica_being_killed(tmp_path: Path, redis_server: RedisServer) -> None:
    env = {**config_env({}), "DEEPR_STORE_URL": redis_server.url}
    dirs = [with_sample(tmp_path / f"replica{n}") for n in (1, 2)]
    with replica_servers(dirs, env) as (procs, urls):
        async with Client(urls[0], mode="legacy") as doomed:
            cid = (await call(doomed, "campaign_start", {"question": QUESTION}))["campaign_id"]
            await finished(doomed, cid)
            note = {"campaign_id": cid, "path": "notes/kept.md", "content": "saved before the crash\n"}
            written = await call(doomed, "sandbox_write", note)
            procs[0].send_signal(signal.SIGKILL)  # at once: nothing after the answer gets to run
        assert written["size"] == len(note["content"])
        procs[0].wait()
        async with Client(urls[1], mode="legacy") as survivor:
            read = await call(survivor, "sandbox_read", {"campaign_id": cid, "path": "notes/kept.md"})
            assert read["content"] == note["content"], read
