"""Provider ``client``: research written by the connected client's own model over MCP sampling,
and the local provider wherever no client can answer (2026-07-28, no capability, a refusal)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.campaigns import QUESTION, finish
from tests.client_model import ClientModel, DrawsPictures, Refuses
from tests.clients import call, connect
from tests.fake_llm import fake_llm
from tests.servers import config_env, http_server

CLIENT = {"provider": "client", "research": {"sampling_timeout_s": 30}}


async def run(client: Client) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    cid = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
    status = await finish(client, cid)
    steps = (await call(client, "cost_report", {"campaign_id": cid}))["steps"]
    report = (await call(client, "sandbox_read", {"campaign_id": cid, "path": "final_report.md"}))["content"]
    return status, steps, report


@pytest.mark.parametrize("transport", ["inproc", "stdio", "http"])
async def test_the_clients_model_writes_the_report(transport: str, data_dir: Path) -> None:
    async with fake_llm() as llm:
        model = ClientModel(llm.url)
        async with connect(transport, "legacy", data_dir, config=CLIENT, sampling_callback=model) as client:
            status, steps, report = await run(client)
    assert status["phase"] == "complete"
    assert steps and {(s["provider"], s["model"]) for s in steps} == {("client", "client-test-model")}
    assert all(s["cost"] == 0 for s in steps)  # the client's user pays for its model
    tasks = [a.system_prompt.split("\n", 1)[0] for a in model.asked]
    assert tasks[0] == "TASK: plan" and "TASK: findings" in tasks and tasks[-1] == "TASK: summary"
    findings = next(a for a in model.asked if a.system_prompt.startswith("TASK: findings"))
    assert "Passages:" in findings.messages[0].content.text and findings.include_context == "none"
    assert "## Answer" in report and "[1]" in report and "## Sources" in report


async def test_a_2026_client_gets_the_local_provider(data_dir: Path) -> None:
    """2026-07-28 deprecates sampling and lets no server send requests: every step is the local provider's."""
    async with fake_llm() as llm:
        model = ClientModel(llm.url)
        async with connect("inproc", "modern", data_dir, config=CLIENT, sampling_callback=model) as client:
            status, steps, report = await run(client)
    assert status["phase"] == "complete" and not model.asked
    assert {s["provider"] for s in steps} == {"local"}
    assert "## Answer" in report


async def test_a_client_without_sampling_gets_the_local_provider(data_dir: Path) -> None:
    async with connect("inproc", "legacy", data_dir, config=CLIENT) as client:
        status, steps, _ = await run(client)
    assert status["phase"] == "complete" and {s["provider"] for s in steps} == {"local"}


@pytest.mark.parametrize("client_model", [Refuses, DrawsPictures])
async def test_a_refusal_or_an_unusable_answer_is_asked_once(client_model: type, data_dir: Path) -> None:
    """A user who declines is not asked at every step; the campaign still finishes, locally."""
    model = client_model()
    async with connect("inproc", "legacy", data_dir, config=CLIENT, sampling_callback=model) as client:
        status, steps, report = await run(client)
    assert status["phase"] == "complete" and model.asked == 1
    assert {s["provider"] for s in steps} == {"local"} and "## Answer" in report


async def test_a_client_that_never_answers_times_out_to_the_local_provider(data_dir: Path) -> None:
    asked = anyio.Event()

    async def silent(context: Any, params: Any) -> Any:
        asked.set()
        await anyio.sleep_forever()

    config = {"provider": "client", "research": {"sampling_timeout_s": 0.5}}
    async with connect("inproc", "legacy", data_dir, config=config, sampling_callback=silent) as client:
        status, steps, _ = await run(client)
    assert asked.is_set() and status["phase"] == "complete" and {s["provider"] for s in steps} == {"local"}


async def test_another_subscriber_samples_when_the_starter_cannot(data_dir: Path) -> None:
    """The starter declared no sampling; a subscriber that did (and may read the campaign) is asked."""
    async with fake_llm() as llm:
        model = ClientModel(llm.url)
        env = config_env({**CLIENT, "jobs": {"step_delay_s": 1.0}})
        async with http_server(data_dir, **env) as base:
            async with Client(f"{base}/mcp", mode="legacy") as starter:
                started = await call(starter, "campaign_start", {"question": QUESTION})
                cid, uri = started["campaign_id"], started["resources"]["status"]
                async with Client(f"{base}/mcp", mode="legacy", sampling_callback=model) as other:
                    await other.subscribe_resource(uri)
                    status = await finish(other, cid)
                    steps = (await call(other, "cost_report", {"campaign_id": cid}))["steps"]
    assert status["phase"] == "complete" and model.asked
    assert ("client", "client-test-model") in {(s["provider"], s["model"]) for s in steps}
