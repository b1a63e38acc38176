"""Sandboxes across replicas (issue 31 items 18 and 19), with real ``serve --http`` processes on one
redis-server.

18: a campaign finished on one replica is never announced complete on another before its final
report can be read there: ``campaign_wait`` on replica 2 says ``complete`` and ``sandbox_extract``
there, at once, has the report replica 1 wrote.
19: a ``sandbox_write`` is in Redis before it is acknowledged: the replica that took it is killed
with SIGKILL right after the answer, and the survivor still gets the note.
Written but not shared: with the engine stopped, or up but refusing writes, a write is either
refused saying nothing was written, or kept in the replica's outbox (the caller told so) and shared
once the engine is back; never acknowledged and lost.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import anyio
import redis.asyncio as aioredis
from mcp import Client

from tests.campaigns import QUESTION
from tests.clients import call, structured, text_of
from tests.redis.engine import RedisServer, running_redis
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


WHALES = "# Blue whales\n\nThe blue whale is the largest animal known to have lived; it eats krill.\n"


async def read_when_there(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """``tool``'s answer once it succeeds (the outbox drains with the follower's backoff, up to its cap)."""
    with anyio.fail_after(60):
        while (answer := await client.call_tool(tool, args)).is_error:
            assert "no such file" in text_of(answer), text_of(answer)
            await anyio.sleep(0.1)
    return structured(answer)


async def sources(client: Client, query: str) -> set[str]:
    return {hit["source"] for hit in (await call(client, "corpus_search", {"query": query}))["hits"]}


async def test_with_redis_stopped_a_write_is_refused_clearly_or_kept_until_it_is_back(tmp_path: Path) -> None:
    """Written but not shared, with the engine's process stopped: a ``sandbox_write`` (which reads the
    campaign's record first) is refused saying nothing was written, and writes nothing; a ``corpus_add``
    (which needs no record) is kept in the replica's outbox, answered saying the other replicas do not
    see it yet, and reaches the other replica once the engine is back. Nothing is acknowledged and then lost."""
    (tmp_path / "redis").mkdir()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "whales.md").write_text(WHALES)
    durable = ("--appendonly", "yes", "--appendfsync", "always")  # an engine that keeps its data over a restart
    with running_redis(tmp_path / "redis", *durable) as engine:
        env = {"DEEPR_STORE_URL": engine.url, "DEEPR_CORPUS_ROOTS": json.dumps([str(docs)])}
        dirs = [with_sample(tmp_path / f"replica{n}") for n in (1, 2)]
        with replica_servers(dirs, env) as (_, urls):
            async with Client(urls[0], mode="legacy") as writer, Client(urls[1], mode="legacy") as reader:
                cid = (await call(writer, "campaign_start", {"question": QUESTION}))["campaign_id"]
                await finished(writer, cid)
                note = {"campaign_id": cid, "path": "notes/outage.md", "content": "written while Redis was down\n"}

                engine.stop()
                refused = await writer.call_tool("sandbox_write", note)
                said = text_of(refused)
                assert refused.is_error and "is unreachable" in said and "nothing was written" in said, said
                assert "Traceback" not in said
                added = await call(writer, "corpus_add", {"path": str(docs)})
                assert added["added"] == 1, added  # kept here and in the outbox until the engine is back
                assert "the other replicas do not see it yet" in added["not_yet_shared"], added
                assert "is unreachable" in added["not_yet_shared"], added
                engine.start()

                with anyio.fail_after(60):  # the outbox drains with the follower's backoff: wait for the document
                    while "whales.md" not in await sources(reader, "blue whale krill"):  # noqa: ASYNC110 - no event crosses replicas
                        await anyio.sleep(0.1)
                again = await call(writer, "corpus_add", {"path": str(docs)})
                assert again["unchanged"] == 1 and "not_yet_shared" not in again, again  # shared now
                for client in (writer, reader):  # the refused write left nothing behind anywhere
                    gone = await client.call_tool("sandbox_read", {"campaign_id": cid, "path": "notes/outage.md"})
                    assert gone.is_error, text_of(gone)
                assert (await call(writer, "sandbox_write", note))["size"] == len(note["content"])  # the retry
                read = await read_when_there(reader, "sandbox_read", {"campaign_id": cid, "path": "notes/outage.md"})
                assert read["content"] == note["content"]


async def test_a_write_the_engine_refuses_is_kept_and_shared_once_it_accepts_again(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """Written but not shared, with the engine up but refusing writes (too few replicas of its own; a
    read-only replica after a failover or an engine out of memory answer alike): the record is read,
    the note written here, its publication refused. The caller is told exactly that (it used to be
    "internal error"), and the note reaches the other replica, once, when the engine accepts writes."""
    env = {**config_env({}), "DEEPR_STORE_URL": redis_server.url}
    dirs = [with_sample(tmp_path / f"replica{n}") for n in (1, 2)]
    admin = aioredis.Redis(host="127.0.0.1", port=redis_server.port)
    try:
        with replica_servers(dirs, env) as (_, urls):
            async with Client(urls[0], mode="legacy") as writer, Client(urls[1], mode="legacy") as reader:
                cid = (await call(writer, "campaign_start", {"question": QUESTION}))["campaign_id"]
                await finished(writer, cid)
                note = {"campaign_id": cid, "path": "notes/kept.md", "content": "kept until it could be shared\n"}

                await admin.config_set("min-replicas-to-write", 1)  # reads go on, every write is refused
                answer = await writer.call_tool("sandbox_write", note)
                said = text_of(answer)
                assert answer.is_error and "was written on this replica but is not yet shared" in said, said
                assert "NOREPLICAS" in said and "do not repeat an append" in said and "Traceback" not in said
                await admin.config_set("min-replicas-to-write", 0)

                read = await read_when_there(reader, "sandbox_read", {"campaign_id": cid, "path": "notes/kept.md"})
                assert read["content"] == note["content"]
                mine = await call(writer, "sandbox_read", {"campaign_id": cid, "path": "notes/kept.md"})
                assert mine["content"] == note["content"]  # written once, not repeated
    finally:
        await admin.aclose()
