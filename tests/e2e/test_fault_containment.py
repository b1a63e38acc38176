"""One campaign's failure is that campaign's: hostile sandbox writes never stop the server.

The scenario from the "safe to share" issue, against a real server process: while a campaign
runs, an agent turns ``final_report.md`` into a folder and writes 2,000 folders deep into its
sandbox. Before, the engine's failed write led to a second unguarded write while recording the
failure, the exception left the task group and the process died, and again on every restart.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import anyio
from mcp import Client

from tests.campaigns import QUESTION, follow
from tests.clients import call
from tests.servers import config_env, launch


async def test_a_blocked_report_path_and_a_deep_write_do_not_stop_the_server(data_dir: Path) -> None:
    env = config_env({"jobs": {"step_delay_s": 0.3}})
    server = launch(data_dir, **env)
    proc, url = server.proc, server.url
    try:
        async with Client(url, mode="legacy") as client:
            cid = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
            blocked = await client.call_tool(
                "tool_call",
                {
                    "name": "sandbox_write",
                    "arguments": {"campaign_id": cid, "path": "final_report.md/x", "content": "x"},
                },
            )
            assert not blocked.is_error  # an ordinary write: the sandbox allows folders
            deep = await client.call_tool(
                "tool_call",
                {"name": "sandbox_write", "arguments": {"campaign_id": cid, "path": "d/" * 2000 + "f", "content": "x"}},
            )
            assert deep.is_error and "(too_deep)" in deep.content[0].text  # refused before making a folder
            assert not (data_dir / "sandboxes" / cid / "d").exists()
            answers = await follow(client, cid)
            assert answers[-1]["phase"] in ("complete", "failed"), answers[-1]
            with anyio.fail_after(30):  # the same connection still answers (a hang guard)
                listed = await call(client, "campaign_list", {})
            assert any(c["campaign_id"] == cid for c in listed["campaigns"])
            report = await client.read_resource(f"deepr://campaigns/{cid}/report")
            assert "# Research report" in report.contents[0].text  # the record kept the report
        assert proc.poll() is None, "the server process died"
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()

    server = launch(data_dir, **env)
    proc, url = server.proc, server.url  # a restart does not resume into the same death
    try:
        async with Client(url, mode="legacy") as client:
            status = await call(client, "campaign_status", {"campaign_id": cid})
            assert status["phase"] in ("complete", "failed")
        assert proc.poll() is None
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()
