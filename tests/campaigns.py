"""What campaign tests do through a client: the question, follow to the end, pause, a priced provider."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import Client

from tests.clients import call

SLOW = {"jobs": {"step_delay_s": 0.15}}


QUESTION = "Why did the first transatlantic telegraph cable fail?"


async def follow(client: Client, campaign_id: str, since: int | None = None) -> list[dict[str, Any]]:
    """What a Claude-Desktop-like model does: campaign_wait until it is told to do something else. ``since``: the
    version it last saw (a wait without it waits for the next change after whatever is current when it arrives)."""
    answers: list[dict[str, Any]] = []
    with anyio.fail_after(60):
        while True:
            args: dict[str, Any] = {"campaign_id": campaign_id, "timeout_s": 20}
            if since is not None:
                args["since"] = since
            answer = await call(client, "campaign_wait", args)
            answers.append(answer)
            since = answer["version"]
            if answer["next"]["tool"] != "campaign_wait":
                return answers


async def pause(client: Client, campaign_id: str) -> dict[str, Any]:
    """Pause and wait until it took effect: a running campaign stops after its current step,
    which may itself change the phase first (planning -> executing)."""
    await call(client, "campaign_pause", {"campaign_id": campaign_id})
    args = {"campaign_id": campaign_id, "until": "phase", "timeout_s": 10}
    with anyio.fail_after(30):
        while True:
            answer = await call(client, "campaign_wait", args)
            if answer["phase"] == "paused":
                return answer


TINY_BUDGET = 0.004


async def finish(client: Client, cid: str, *, within_s: float = 60) -> dict[str, Any]:
    """The campaign's status once it ended, waited for with ``campaign_wait`` as a pull client would."""
    with anyio.fail_after(within_s):
        while True:
            answer = await call(client, "campaign_wait", {"campaign_id": cid, "until": "complete", "timeout_s": 20})
            if not answer["timed_out"]:
                return await call(client, "campaign_status", {"campaign_id": cid})


def priced(url: str, **budget: Any) -> dict[str, Any]:
    return {
        "provider": "openai",
        "openai": {"base_url": f"{url}/v1", "api_key": "sk-test", "model": "gpt-4o", "cheap_model": "gpt-4o-mini"},
        "budget": {"timeout_s": 30, **budget},
    }


def assert_spend_within_budget(status: dict[str, Any]) -> None:
    """The spend never passed the budget in force when it was spent."""
    limits = [d["new_budget"] for d in status["decisions"] if d["new_budget"]]
    assert status["cost"] <= max([status["budget"], *limits]) + 1e-9
