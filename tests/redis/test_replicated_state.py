"""Replicas share corpora, sandboxes and experts: in-process followers on Redis streams, then real replicas."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import pytest
from mcp import Client

from deepr_mcp.errors import DeeprError
from deepr_mcp.redis.client import open_checked
from deepr_mcp.redis.log import RedisChangeLog
from deepr_mcp.replication.follower import Follower
from deepr_mcp.research.corpus.storage import Corpus
from tests.campaigns import QUESTION, follow
from tests.clients import call
from tests.redis.engine import RedisServer
from tests.servers import http_server


def doc(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder / name


@pytest.fixture
async def followers(tmp_path: Path, redis_server: RedisServer) -> AsyncIterator[list[Follower]]:
    async with AsyncExitStack() as stack:
        made = []
        for n in range(2):
            corpus = Corpus(tmp_path / f"corpus{n}.db")
            stack.callback(corpus.close)
            corpus.share()
            client = await open_checked(redis_server.url, None, "deepr:")
            stack.push_async_callback(client.aclose)
            made.append(
                Follower("corpus", corpus, RedisChangeLog(client, url=redis_server.url, key="t:corpus"), block_ms=50)
            )
        yield made


def corpus_of(follower: Follower) -> Corpus:
    return follower._target  # type: ignore[return-value]


async def test_a_change_published_by_one_follower_is_applied_by_the_other(
    followers: list[Follower], tmp_path: Path
) -> None:
    one, two = followers
    corpus_of(one).add_path(doc(tmp_path / "docs", "a.md", "# Cables\n\nThe 1866 cable was laid by the Great Eastern."))
    assert await one.publish() == 1
    assert await two.catch_up() == 1
    assert corpus_of(two).search("Great Eastern")
    assert await one.catch_up() == 0  # its own change comes back and is skipped
    assert await two.catch_up() == 0  # nothing new


async def test_while_the_store_is_down_changes_wait_in_the_outbox(
    followers: list[Follower], tmp_path: Path, redis_server: RedisServer
) -> None:
    one, two = followers
    redis_server.stop()
    corpus_of(one).add_path(doc(tmp_path / "docs", "b.md", "# Repeaters\n\nRepeaters amplify the signal."))
    assert corpus_of(one).search("repeaters")  # adding and searching keep working locally
    with pytest.raises(DeeprError, match="unreachable"):
        await one.publish()
    assert len(corpus_of(one).outbox()) == 1  # nothing lost, nothing marked sent
    redis_server.start()  # back, empty (no persistence in tests): the outbox is what carries the change
    assert await one.publish() == 1
    assert await two.catch_up() == 1 and corpus_of(two).search("repeaters")


async def test_the_follower_loop_survives_an_outage(
    followers: list[Follower], tmp_path: Path, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    one, two = followers
    caplog.set_level(logging.WARNING, logger="deepr_mcp")

    def paused() -> int:
        return sum("sharing paused" in r.getMessage() for r in caplog.records)

    async with anyio.create_task_group() as tg:
        tg.start_soon(one.run)
        tg.start_soon(two.run)
        redis_server.stop()
        with anyio.fail_after(30):  # both loops meet the outage and back off (each says so once)
            while paused() < 2:  # noqa: ASYNC110 - a log record has no event
                await anyio.sleep(0.05)
        corpus_of(one).add_path(doc(tmp_path / "docs", "c.md", "# Splices\n\nA splice joins two cable ends."))
        redis_server.start()
        with anyio.fail_after(30):
            while not corpus_of(two).search("splice"):  # noqa: ASYNC110 - another replica's index, no event
                await anyio.sleep(0.05)
        tg.cancel_scope.cancel()


async def test_documents_sandboxes_and_experts_made_on_one_replica_are_readable_on_another(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    small = {"DEEPR_OBJECTS_THRESHOLD_BYTES": "4096"}  # so a search result is big enough to be stored
    async with (
        http_server(one, "--store", redis_server.url, **small) as first,
        http_server(two, "--store", redis_server.url, **small) as second,
    ):
        async with Client(f"{first}/mcp", mode="legacy") as a, Client(f"{second}/mcp", mode="auto") as b:
            added = await call(a, "corpus_add", {"sample": True})
            assert added["passages_indexed"] > 0, added
            with anyio.fail_after(30):
                while not (await call(b, "corpus_search", {"query": "gutta-percha", "limit": 1}))["hits"]:  # noqa: ASYNC110
                    await anyio.sleep(0.1)
            # The replica that never added anything can now run a campaign on those documents.
            cid = (await call(b, "campaign_start", {"question": QUESTION}))["campaign_id"]
            assert (await follow(b, cid))[-1]["phase"] == "complete"
            # Its sandbox, written on the replica that ran it, is readable on the other; and back.
            with anyio.fail_after(30):
                while True:  # "no sandbox" until the log has brought it over (within about a second)
                    extracted = await a.call_tool("sandbox_extract", {"campaign_id": cid})
                    if not extracted.is_error and (extracted.structured_content or {}).get("final_report"):
                        break
                    await anyio.sleep(0.1)
            await call(a, "sandbox_write", {"campaign_id": cid, "path": "notes/from-a.md", "content": "seen on a"})
            with anyio.fail_after(30):
                while True:
                    read = await b.call_tool("sandbox_read", {"campaign_id": cid, "path": "notes/from-a.md"})
                    if not read.is_error:
                        assert "seen on a" in read.content[0].text
                        break
                    await anyio.sleep(0.1)
            # A big result stored through one replica is read by reference on the other (same principal).
            big = await call(a, "corpus_search", {"query": "cable", "limit": 50})
            assert big["truncated"] is True, big
            ref = big["object"]["ref"]
            part = await call(b, "object_get", {"ref": f"{ref}.hits[0].text"})
            assert "cable" in json.dumps(part).lower(), part
            # An expert made on one replica is the same record on the other (one Redis store, no copy).
            made = await call(a, "expert_create", {"name": "Cable history"})
            assert [e["expert_id"] for e in (await call(b, "expert_list", {}))["experts"]] == [made["expert"]["id"]]
            listed = (await call(b, "corpus_list", {}))["items"]
            await call(b, "corpus_remove", {"path": listed[0]["path"]})
            with anyio.fail_after(30):
                while (await call(a, "corpus_list", {}))["documents"] != len(listed) - 1:  # noqa: ASYNC110
                    await anyio.sleep(0.1)


async def test_caught_up_waits_the_configured_catch_up_then_answers_from_the_local_copy(
    followers: list[Follower], tmp_path: Path
) -> None:
    """``store.catch_up_s`` bounds the wait of a read that must see the others' changes: a replica whose
    follower is not applying (here: not running) says so after it, instead of waiting forever."""
    one, two = followers
    two.catch_up_s = 0.2
    corpus_of(one).add_path(doc(tmp_path / "docs", "d.md", "# Grapnels\n\nA grapnel lifts a cable from the seabed."))
    assert await one.publish() == 1
    with anyio.fail_after(30):
        assert await two.caught_up() is False  # the entry is in the log, not applied here
        assert await two.catch_up() == 1
        assert await two.caught_up() is True and await two.caught_up(timeout_s=0) is True
