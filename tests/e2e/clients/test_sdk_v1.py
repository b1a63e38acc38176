"""Clients still on the 1.x SDK (the most deployed today) get every feature, not only tools.

The 1.x client runs in its own virtual environment (.ci/mcp1, created on first use from PyPI)
against a real `deepr-mcp serve --http`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.campaigns import QUESTION, TINY_BUDGET, assert_spend_within_budget, priced
from tests.fake_llm import fake_llm
from tests.servers import config_env, http_server

ROOT = Path(__file__).resolve().parents[3]
VENV = ROOT / ".ci" / "mcp1"
SCRIPT = Path(__file__).with_name("v1_client.py")


@pytest.fixture(scope="session")
def v1_python() -> Path:
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "mcp>=1.20,<2"],
            check=True,
            timeout=600,
        )
    version = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('mcp'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert version.startswith("1."), version
    return python


async def test_sdk_1x_client_gets_gateway_subscriptions_elicitation_and_progress(
    v1_python: Path, data_dir: Path
) -> None:
    async with fake_llm() as llm:
        env = config_env({**priced(llm.url), "jobs": {"step_delay_s": 0.3}})
        async with http_server(data_dir, **env) as base:
            with anyio.fail_after(120):
                proc = await anyio.run_process(
                    [str(v1_python), str(SCRIPT), f"{base}/mcp", QUESTION, str(TINY_BUDGET)], check=False
                )
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    assert out["protocol"] == "2025-11-25"
    assert out["tools"] == ["tool_search", "tool_call"] and out["first_hit"] == "campaign_start"
    assert out["status"]["phase"] == "complete" and out["report"].startswith("# Research report")
    assert out["elicited"] == 1 and out["status"]["decisions"][0]["channel"] == "elicitation"
    assert out["updates"] >= 1 and out["list_changed"] >= 1 and out["progress"] >= 1
    assert_spend_within_budget(out["status"])


async def test_sdk_1x_client_runs_a_campaign_as_a_task(v1_python: Path, data_dir: Path) -> None:
    """The 1.x SDK's experimental task API: call_tool_as_task, poll_task, get_task_result, list, cancel."""
    async with http_server(data_dir, **config_env({"jobs": {"step_delay_s": 0.1}})) as base:
        with anyio.fail_after(120):
            proc = await anyio.run_process(
                [str(v1_python), str(SCRIPT.with_name("v1_tasks.py")), f"{base}/mcp", QUESTION], check=False
            )
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    assert out["server_tasks"]["requests"]["tools"]["call"] == {}
    assert out["created"] == "working" and out["polled"][-1] == "completed"
    assert out["result_error"] is False and out["phase"] == "complete"
    assert out["report"].startswith("# Research report")
    assert out["task_id"] in out["listed"] and out["cancelled"] == "cancelled"
    assert "completed" in out["notified"]
