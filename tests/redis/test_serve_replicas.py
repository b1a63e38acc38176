"""``deepr-mcp serve --store redis://...``: two real replicas on one Redis see the same campaigns."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mcp import Client

from tests.campaigns import QUESTION, follow
from tests.clients import call
from tests.redis.engine import RedisServer, running_redis
from tests.samples import with_sample
from tests.servers import http_server, server_env


async def test_a_campaign_run_on_one_replica_is_listed_by_another(tmp_path: Path, redis_server: RedisServer) -> None:
    one, two = tmp_path / "one", tmp_path / "two"  # separate data dirs: only Redis is shared
    one.mkdir(), two.mkdir()
    with_sample(one)  # the replica that runs the campaign has documents to read
    async with http_server(one, "--store", redis_server.url) as base:
        async with Client(f"{base}/mcp", mode="legacy") as client:
            cid = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
            answers = await follow(client, cid)
            assert answers[-1]["phase"] == "complete", answers[-1]
        async with http_server(two, "--store", redis_server.url) as other:
            async with Client(f"{other}/mcp", mode="auto") as client:
                listed = await call(client, "campaign_list", {})
                assert [c["campaign_id"] for c in listed["campaigns"]] == [cid]
                status = await call(client, "campaign_status", {"campaign_id": cid})
                assert status["phase"] == "complete"


def serve(data_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "deepr_mcp", "serve", "--http", "127.0.0.1:0", *args]
    env_ = server_env(data_dir, **env)
    return subprocess.run(cmd, env=env_, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_a_malformed_store_url_is_refused_before_serving(data_dir: Path) -> None:
    done = serve(data_dir, "--store", "redis://:hunter2@127.0.0.1/0")
    assert done.returncode != 0
    assert "expected redis://HOST:PORT/DB" in done.stderr and "no port" in done.stderr
    assert "hunter2" not in done.stderr and "Traceback" not in done.stderr


def test_an_unreachable_store_at_start_exits_non_zero_with_why(data_dir: Path, redis_server: RedisServer) -> None:
    url = redis_server.url
    redis_server.stop()
    done = serve(data_dir, DEEPR_STORE_URL=url)
    assert done.returncode != 0
    assert f"127.0.0.1:{redis_server.port}/0 is unreachable" in done.stderr and "Traceback" not in done.stderr


def test_a_wrong_password_exits_non_zero_without_echoing_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "redis").mkdir()
    with running_redis(tmp_path / "redis", "--requirepass", "right-password") as server:
        in_url = server.url.replace("redis://", "redis://:not-the-password@")
        done = serve(data, "--store", in_url)
        assert done.returncode != 0 and "refused the password" in done.stderr, done.stderr
        assert "not-the-password" not in done.stderr and "Traceback" not in done.stderr
        done = serve(data, "--store", server.url, DEEPR_STORE_PASSWORD="also-wrong")
        assert done.returncode != 0 and "refused the password" in done.stderr, done.stderr
        assert "also-wrong" not in done.stderr and "Traceback" not in done.stderr
        done = serve(data, "--store", server.url)
        assert done.returncode != 0 and "needs a password" in done.stderr and "Traceback" not in done.stderr
