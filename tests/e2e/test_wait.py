"""campaign_wait: many waiters wake on one change; progress keeps long waits alive."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from deepr_mcp.jobs import waiting
from tests.campaigns import QUESTION, pause
from tests.clients import call, connect, text_of


async def test_a_thousand_waiters_all_return_on_the_next_change(data_dir: Path) -> None:
    async with connect("inproc", "legacy", data_dir, config={"jobs": {"step_delay_s": 0.2}}) as client:
        cid = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
        paused = await pause(client, cid)
        answers: list[dict] = []

        async def waiter() -> None:
            result = await client.call_tool("campaign_wait", {"campaign_id": cid, "since": paused["version"]})
            answers.append(json.loads(text_of(result)))

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                for _ in range(1000):
                    tg.start_soon(waiter)
                await anyio.sleep(1.0)  # all parked on the change feed
                assert answers == []
                await call(client, "campaign_resume", {"campaign_id": cid})
        assert len(answers) == 1000
        assert all(not a["timed_out"] and a["version"] > paused["version"] for a in answers)


async def test_long_wait_sends_progress_at_least_every_ten_seconds(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wait on a quiet (paused) campaign reports progress on the heartbeat, with no change to report.

    The heartbeat is 10 s (checked as the constant); the wait runs with a 0.2 s one, so it beats many
    times within its timeout. Timing the real 10 s beat against a 10.5 s cut-off failed on a loaded
    machine: its only margin was half a second.
    """
    assert waiting.HEARTBEAT_S <= 10
    monkeypatch.setattr(waiting, "HEARTBEAT_S", 0.2)
    async with connect("inproc", "legacy", data_dir, config={"jobs": {"step_delay_s": 0.2}}) as client:
        cid = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
        await pause(client, cid)
        beats: list[str | None] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            beats.append(message)

        result = await client.call_tool(
            "campaign_wait", {"campaign_id": cid, "until": "complete", "timeout_s": 6}, progress_callback=on_progress
        )
        answer = json.loads(text_of(result))
        assert answer["timed_out"] and answer["phase"] == "paused"
        assert len(beats) >= 2 and all(m and m.startswith("paused") for m in beats), beats
        assert answer["next"]["tool"] == "campaign_wait"
