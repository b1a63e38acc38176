"""A server killed with SIGKILL mid-campaign and restarted finishes the campaign; nothing is lost."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import anyio
from mcp import Client

from tests.campaigns import QUESTION, follow
from tests.clients import call
from tests.servers import config_env, launch


async def test_sigkill_mid_campaign_then_restart_finishes_it(data_dir: Path) -> None:
    env = config_env({"jobs": {"step_delay_s": 0.3}})
    server = launch(data_dir, **env)
    proc, url = server.proc, server.url
    try:
        async with Client(url, mode="legacy") as client:
            ids = [
                (await call(client, "campaign_start", {"question": f"{QUESTION} ({i})"}))["campaign_id"]
                for i in range(3)
            ]
            with anyio.fail_after(60):
                while True:  # kill once work is under way but not finished (a slow poll may skip executing)
                    status = await call(client, "campaign_status", {"campaign_id": ids[0]})
                    if status["phase"] in ("executing", "synthesizing") and status["progress"] > 0.2:
                        break
                    assert status["phase"] != "complete", "it finished before the kill: make its steps slower"
                    await anyio.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()

    server = launch(data_dir, **env)
    proc, url = server.proc, server.url
    try:
        async with Client(url, mode="legacy") as client:
            for cid in ids:
                answers = await follow(client, cid)
                assert answers[-1]["phase"] == "complete", answers[-1]
                report = await client.read_resource(f"deepr://campaigns/{cid}/report")
                assert "## Sources" in report.contents[0].text
            listed = await call(client, "campaign_list", {})
            assert {c["campaign_id"] for c in listed["campaigns"]} >= set(ids)
            statuses = [
                json.loads((await client.read_resource(f"deepr://campaigns/{c}/status")).contents[0].text) for c in ids
            ]
            assert all(s["finished_at"] and not s["active_tasks"] for s in statuses)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
