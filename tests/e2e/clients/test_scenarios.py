"""One research scenario, completed the way each real client behaves.

Start a campaign whose budget will be exceeded, follow it to the end, settle the budget question,
read the cited report; every client must get the report and the recorded spend must never pass
the budget in force.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from haystack_integrations.tools.mcp import MCPToolset, StreamableHttpServerInfo
from mcp import Client

from tests.campaigns import QUESTION, TINY_BUDGET, assert_spend_within_budget, priced
from tests.clients import Human, Recorder, accept, connect, payload, structured
from tests.fake_llm import fake_llm
from tests.servers import config_env, http_server, http_server_sync


def check_report(report: str) -> None:
    assert report.startswith(f"# Research report: {QUESTION}") and "## Sources" in report and "[1]" in report


async def test_claude_desktop_like(data_dir: Path) -> None:
    """Handshake era, lists tools once, no elicitation, ignores notifications: gateway tools only."""
    async with fake_llm() as llm, connect("stdio", "legacy", data_dir, config=priced(llm.url)) as client:
        tools = [t.name for t in (await client.list_tools()).tools]  # the only tools/list it ever does
        assert tools == ["tool_search", "tool_call"]

        async def gateway(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            result = await client.call_tool("tool_call", {"name": name, "arguments": arguments})
            assert not result.is_error, result
            return structured(result)

        found = structured(await client.call_tool("tool_search", {"query": "start a research campaign"}))
        assert found["hits"][0]["name"] == "campaign_start"
        cid = (await gateway("campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
        since = None
        with anyio.fail_after(60):
            while True:
                answer = await gateway("campaign_wait", {"campaign_id": cid, **({"since": since} if since else {})})
                since = answer["version"]
                nxt = answer["next"]
                if nxt["tool"] == "budget_decide":  # the model asks the user, then makes the suggested call
                    await gateway("budget_decide", {**nxt["arguments"], "new_budget": 1.0})
                elif nxt["tool"] != "campaign_wait":
                    break
        report = await client.call_tool("tool_call", {"name": "campaign_report", "arguments": {"campaign_id": cid}})
        check_report(report.content[0].text)
        status = await gateway("campaign_status", {"campaign_id": cid})
        assert status["decisions"][0]["channel"] == "budget_decide"
        assert_spend_within_budget(status)


async def test_claude_code_like(data_dir: Path) -> None:
    """Elicitation capable, honours list_changed (search mode), subscribes to the status resource."""
    human, recorder = Human(accept(decision="approve_override", new_budget=1.0)), Recorder()
    async with fake_llm() as llm:
        env = config_env({**priced(llm.url), "gateway": {"mode": "search"}})
        async with (
            http_server(data_dir, **env) as base,
            Client(f"{base}/mcp", mode="legacy", elicitation_callback=human, message_handler=recorder) as client,
        ):
            assert [t.name for t in (await client.list_tools()).tools] == ["tool_search"]
            await client.call_tool("tool_search", {"query": "start a research campaign and wait for it", "limit": 5})
            # Sent on the call's own stream before its answer, but the SDK hands notifications to the
            # handler in a task of their own: wait for it rather than read the recorder once.
            with anyio.fail_after(30):
                await recorder.wait_for(lambda r: r.saw("notifications/tools/list_changed"))
            listed = {t.name for t in (await client.list_tools()).tools}
            assert {"campaign_start", "campaign_wait"} <= listed  # now called by their own names
            started = structured(
                await client.call_tool("campaign_start", {"question": QUESTION, "budget": TINY_BUDGET})
            )
            cid, uri = started["campaign_id"], started["resources"]["status"]
            await client.subscribe_resource(uri)
            with anyio.fail_after(60):
                while True:  # re-read the status whenever it is pushed
                    changed = recorder.changed  # taken before the read: a push during it still wakes us
                    status = json.loads((await client.read_resource(uri)).contents[0].text)
                    if status["phase"] in ("complete", "cancelled", "failed"):
                        break
                    await changed.wait()
            assert status["phase"] == "complete" and human.asked
            assert status["decisions"][0]["channel"] == "elicitation"
            assert_spend_within_budget(status)
            check_report((await client.read_resource(f"deepr://campaigns/{cid}/report")).contents[0].text)
            assert any(isinstance(n, types.ResourceUpdatedNotification) for n in recorder.notifications)


async def test_modern_client(data_dir: Path) -> None:
    """2026-07-28: answers the budget question through InputRequiredResult, follows with a listen stream."""
    human = Human(accept(decision="approve_override", new_budget=1.0))
    async with fake_llm() as llm:
        async with (
            http_server(data_dir, **config_env(priced(llm.url))) as base,
            Client(f"{base}/mcp", mode="auto", elicitation_callback=human) as client,
        ):
            assert client.protocol_version == "2026-07-28"
            started = structured(
                await client.call_tool("campaign_start", {"question": QUESTION, "budget": TINY_BUDGET})
            )
            cid, uri = started["campaign_id"], started["resources"]["status"]
            with anyio.fail_after(60):
                async with client.listen(resource_subscriptions=[uri]) as sub:
                    while True:
                        # Any call touching the campaign carries a pending question; the client answers.
                        status = structured(await client.call_tool("campaign_status", {"campaign_id": cid}))
                        if status["phase"] in ("complete", "cancelled", "failed"):
                            break
                        with anyio.move_on_after(5):
                            await sub.__anext__()
            assert status["phase"] == "complete" and human.asked
            assert status["decisions"][0]["channel"] == "input_required"
            assert_spend_within_budget(status)
            report = await client.call_tool("campaign_report", {"campaign_id": cid})
            check_report(report.content[0].text)


def test_haystack_toolset(data_dir: Path) -> None:
    """Haystack lists tools once and calls them by name: the whole scenario through tool_call."""

    import threading

    ready, stop, holder = threading.Event(), threading.Event(), {}

    def run_llm() -> None:
        async def main() -> None:
            async with fake_llm() as llm:
                holder["url"] = llm.url
                ready.set()
                await anyio.to_thread.run_sync(stop.wait)

        anyio.run(main)

    thread = threading.Thread(target=run_llm, daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        with http_server_sync(data_dir, **config_env(priced(holder["url"]))) as base:
            toolset = MCPToolset(server_info=StreamableHttpServerInfo(url=f"{base}/mcp"))
            try:
                if hasattr(toolset, "warm_up"):
                    toolset.warm_up()
                tools = {tool.name: tool for tool in toolset}

                def call(name: str, **arguments: Any) -> dict[str, Any]:
                    return payload(tools["tool_call"].invoke(name=name, arguments=arguments))

                cid = call("campaign_start", question=QUESTION, budget=TINY_BUDGET)["campaign_id"]
                since = None
                for _ in range(60):
                    answer = call("campaign_wait", campaign_id=cid, **({"since": since} if since else {}))
                    since = answer["version"]
                    if answer["next"]["tool"] == "budget_decide":
                        call("budget_decide", campaign_id=cid, decision="approve_override", new_budget=1.0)
                    elif answer["next"]["tool"] != "campaign_wait":
                        break
                body = json.loads(
                    str(tools["tool_call"].invoke(name="campaign_report", arguments={"campaign_id": cid}))
                )
                check_report(body["content"][0]["text"])
                status = call("campaign_status", campaign_id=cid)
                assert status["phase"] == "complete"
                assert_spend_within_budget(status)
            finally:
                toolset.close()
    finally:
        stop.set()
        thread.join(10)
