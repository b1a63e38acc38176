"""Campaigns as clients see them: start, follow (pull and push), read, steer, and the bad inputs."""

from __future__ import annotations

import json
import re
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.campaigns import QUESTION, SLOW, follow, pause
from tests.clients import Recorder, call, connect, structured, text_of
from tests.servers import config_env, http_server


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("transport", ["inproc", "stdio", "http"])
async def test_start_follow_and_read_a_campaign(transport: str, era: str, data_dir: Path) -> None:
    async with connect(transport, era, data_dir, config=SLOW) as client:
        started = await call(client, "campaign_start", {"question": QUESTION, "budget": 0.5})
        cid = started["campaign_id"]
        assert started["resources"]["status"] == f"deepr://campaigns/{cid}/status"
        answers = await follow(client, cid)
        assert answers[-1]["phase"] == "complete" and answers[-1]["next"]["tool"] == "campaign_report"
        assert len(answers) >= 3  # it woke on intermediate changes, not only at the end
        phases = {a["phase"] for a in answers}
        assert {"executing", "complete"} <= phases

        report = await client.call_tool("tool_call", {"name": "campaign_report", "arguments": {"campaign_id": cid}})
        text = text_of(report)
        assert text.startswith(f"# Research report: {QUESTION}") and "## Sources" in text
        assert re.search(r"\[\d+\]", text)

        status = await client.read_resource(f"deepr://campaigns/{cid}/status")
        body = json.loads(status.contents[0].text)
        assert status.contents[0].mime_type == "application/json"
        assert (body["phase"], body["progress"], body["cost"]) == ("complete", 1.0, 0.0)
        report_resource = await client.read_resource(f"deepr://campaigns/{cid}/report")
        assert report_resource.contents[0].mime_type == "text/markdown"
        assert report_resource.contents[0].text == text
        beliefs = await call(client, "campaign_beliefs", {"campaign_id": cid})
        assert beliefs["beliefs"] and all(0 <= b["confidence"] <= 1 for b in beliefs["beliefs"])
        listed = await call(client, "campaign_list", {"phase": "complete"})
        assert cid in {c["campaign_id"] for c in listed["campaigns"]}
        templates = (await client.list_resource_templates()).resource_templates
        assert "deepr://campaigns/{id}/report" in {t.uri_template for t in templates}


@pytest.mark.parametrize("subscribers", [2, 50])
async def test_every_handshake_subscriber_gets_updates_through_complete(subscribers: int, data_dir: Path) -> None:
    """Several agents on their own HTTP connections subscribe to one campaign's status."""
    env = config_env(SLOW)
    async with http_server(data_dir, **env) as base, AsyncExitStack() as stack:
        recorders = [Recorder() for _ in range(subscribers)]
        clients = [
            await stack.enter_async_context(Client(f"{base}/mcp", mode="legacy", message_handler=r)) for r in recorders
        ]
        # Paused while everyone subscribes, so the campaign cannot end first however slow the
        # machine is (subscribing 50 connections one after the other can outlast the campaign).
        started = await call(clients[0], "campaign_start", {"question": QUESTION})
        uri = started["resources"]["status"]
        await pause(clients[0], started["campaign_id"])
        for client in clients:
            await client.subscribe_resource(uri)
        await call(clients[0], "campaign_resume", {"campaign_id": started["campaign_id"]})
        answers = await follow(clients[0], started["campaign_id"])
        assert answers[-1]["phase"] == "complete"
        finished = json.loads((await clients[0].read_resource(uri)).contents[0].text)["finished_at"]
        with anyio.fail_after(30):  # every subscriber is told about the final state (a hang guard)
            for recorder in recorders:
                await recorder.wait_for(lambda r: _latest_publish(r) >= finished)
        for recorder in recorders:
            updates = [n for n in recorder.notifications if isinstance(n, types.ResourceUpdatedNotification)]
            assert {str(n.params.uri) for n in updates} == {uri}
            assert max(n.params.meta["deepr/subscriberCount"] for n in updates) == subscribers


def _latest_publish(recorder: Recorder) -> str:
    stamps = [
        n.params.meta["deepr/publishedAt"]
        for n in recorder.notifications
        if isinstance(n, types.ResourceUpdatedNotification) and n.params.meta
    ]
    return max(stamps, default="")


async def test_modern_listen_stream_gets_updates(data_dir: Path) -> None:
    async with connect("http", "modern", data_dir, config=SLOW) as client:
        started = await call(client, "campaign_start", {"question": QUESTION})
        uri, cid = started["resources"]["status"], started["campaign_id"]
        # Held while the stream opens: a listen stream has no replay, so a campaign that finished
        # before the server acknowledged the listen (a loaded machine) would leave it waiting forever.
        await pause(client, cid)
        seen: list[str] = []
        with anyio.fail_after(60):
            async with client.listen(resource_subscriptions=[uri]) as sub:
                await call(client, "campaign_resume", {"campaign_id": cid})
                async for event in sub:
                    seen.append(event.uri)
                    status = json.loads((await client.read_resource(uri)).contents[0].text)
                    if status["phase"] == "complete":
                        break
        assert seen and set(seen) == {uri}


BAD = [
    ("campaign_status", {"campaign_id": "cnope"}, "no campaign 'cnope'"),
    ("campaign_status", {"campaign_id": "../etc"}, "campaign_id"),
    ("campaign_start", {"question": "  "}, "question"),
    ("campaign_start", {"question": "valid question?", "budget": -1}, "budget"),
    ("campaign_wait", {"campaign_id": "cnope"}, "no campaign"),
    ("campaign_wait", {"campaign_id": "cnope", "timeout_s": 120}, "timeout_s"),
    ("campaign_wait", {"campaign_id": "cnope", "until": "forever"}, "until"),
    ("campaign_list", {"phase": "sleeping"}, "phase"),
    ("budget_decide", {"campaign_id": "cnope", "decision": "approve_override"}, "no campaign"),
    ("budget_decide", {"campaign_id": "cnope", "decision": "maybe"}, "decision"),
]


async def test_bad_campaign_inputs_and_state_conflicts(data_dir: Path) -> None:
    async with connect("inproc", "legacy", data_dir) as client:
        for name, arguments, expected in BAD:
            result = await client.call_tool("tool_call", {"name": name, "arguments": arguments})
            assert result.is_error and expected in text_of(result), (name, text_of(result))
        started = await call(client, "campaign_start", {"question": QUESTION})
        cid = started["campaign_id"]
        await follow(client, cid)
        for name, expected in [
            ("campaign_cancel", "already complete"),
            ("campaign_resume", "only a paused campaign resumes"),
            ("campaign_pause", "only a running or queued one pauses"),
            ("budget_decide", "no open budget question"),
        ]:
            args: dict[str, Any] = {"campaign_id": cid}
            if name == "budget_decide":
                args["decision"] = "abort"
            result = await client.call_tool("tool_call", {"name": name, "arguments": args})
            assert result.is_error and expected in text_of(result), (name, text_of(result))
        stale = await client.call_tool(
            "tool_call", {"name": "campaign_wait", "arguments": {"campaign_id": cid, "since": 10_000}}
        )
        assert stale.is_error and "newer than" in text_of(stale)
        finished = await call(client, "campaign_wait", {"campaign_id": cid, "until": "complete", "timeout_s": 55})
        # answers at once, not after waiting out its timeout (the margin is wide: no 1 s cut-off)
        assert finished["phase"] == "complete" and not finished["timed_out"] and finished["waited_s"] < 27
        # Resource misuse is a JSON-RPC error; the connection keeps serving.
        for uri, expected in [
            ("deepr://campaigns/cnope/status", "not found"),
            ("deepr://campaigns/x/bogus", "unknown resource kind"),
            ("not a uri", "malformed"),
        ]:
            with pytest.raises(MCPError, match=expected) as refused:
                await client.read_resource(uri)
            assert refused.value.error.data == {"uri": uri}  # SEP-2164: the error names the resource
        for uri in ["not a uri", "deepr://campaigns/x/bogus", "x:" + "a" * 600]:
            with pytest.raises(MCPError):
                await client.subscribe_resource(uri)
        await client.subscribe_resource("test://watched-resource")  # well formed: accepted, never fires
        assert (await call(client, "campaign_status", {"campaign_id": cid}))["phase"] == "complete"


async def test_subscriptions_past_the_per_connection_cap_are_refused(data_dir: Path) -> None:
    config = {"subscriptions": {"max_per_connection": 2}}
    async with connect("http", "legacy", data_dir, config=config) as client:
        await client.subscribe_resource("deepr://campaigns/c1/status")
        await client.subscribe_resource("deepr://campaigns/c2/status")
        await client.subscribe_resource("deepr://campaigns/c2/status")  # again: not a new one
        with pytest.raises(MCPError, match="already has 2 subscriptions, the most allowed"):
            await client.subscribe_resource("deepr://campaigns/c3/status")
        await client.unsubscribe_resource("deepr://campaigns/c1/status")
        await client.subscribe_resource("deepr://campaigns/c3/status")  # room again
        assert (await client.list_tools()).tools  # the connection keeps serving


async def test_pause_resume_cancel(data_dir: Path) -> None:
    async with connect("inproc", "legacy", data_dir, config={"jobs": {"step_delay_s": 0.3}}) as client:
        cid = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
        await pause(client, cid)
        await call(client, "campaign_resume", {"campaign_id": cid})
        again = await client.call_tool("tool_call", {"name": "campaign_resume", "arguments": {"campaign_id": cid}})
        assert again.is_error and "only a paused campaign resumes" in text_of(again)  # it runs (or queues) now
        await call(client, "campaign_cancel", {"campaign_id": cid})
        done = await call(client, "campaign_wait", {"campaign_id": cid, "until": "complete", "timeout_s": 50})
        assert done["phase"] == "cancelled"
        report = await client.call_tool("campaign_report", {"campaign_id": cid})
        assert "Partial report" in text_of(report) or "Not written yet" in text_of(report)


async def test_a_dropped_connection_loses_its_subscriptions(data_dir: Path) -> None:
    env = config_env(SLOW)
    async with http_server(data_dir, **env) as base:
        async with Client(f"{base}/mcp", mode="legacy") as stays:
            started = await call(stays, "campaign_start", {"question": QUESTION, "budget": 1})
            uri = started["resources"]["status"]
            await stays.subscribe_resource(uri)
            async with Client(f"{base}/mcp", mode="legacy") as leaves:
                await leaves.subscribe_resource(uri)
                count = json.loads((await stays.read_resource(uri)).contents[0].text)["subscriber_count"]
                assert count == 2
            with anyio.fail_after(30):
                # Server-side session teardown has no client-visible event to wait on; re-read until it shows.
                while json.loads((await stays.read_resource(uri)).contents[0].text)["subscriber_count"] != 1:  # noqa: ASYNC110
                    await anyio.sleep(0.05)
            await stays.unsubscribe_resource(uri)
            assert json.loads((await stays.read_resource(uri)).contents[0].text)["subscriber_count"] == 0


async def test_campaign_start_caller_with_a_progress_token_gets_progress_until_done(data_dir: Path) -> None:
    recorder = Recorder()
    async with connect("http", "legacy", data_dir, config=SLOW, message_handler=recorder) as client:
        started = await client.call_tool("campaign_start", {"question": QUESTION}, meta={"progressToken": "follow-me"})
        cid = structured(started)["campaign_id"]

        def finished(r: Recorder) -> bool:
            """The last notification says "complete": 1.0 comes first with the last step's save, still
            "synthesizing" (the campaign is marked complete just after), so 1.0 alone is not the end."""
            return any(
                isinstance(n, types.ProgressNotification)
                and n.params.progress == 1.0
                and (n.params.message or "").startswith("complete")
                for n in r.notifications
            )

        with anyio.fail_after(60):
            await recorder.wait_for(finished)
        progress = [n.params for n in recorder.notifications if isinstance(n, types.ProgressNotification)]
        assert {p.progress_token for p in progress} == {"follow-me"}
        values = [p.progress for p in progress]
        assert values == sorted(values) and len(values) >= 3
        assert (await call(client, "campaign_status", {"campaign_id": cid}))["phase"] == "complete"


async def test_delete_and_pricing(data_dir: Path) -> None:
    async with connect("inproc", "legacy", data_dir, config={"jobs": {"step_delay_s": 0.3}}) as client:
        cid = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
        running = await client.call_tool("tool_call", {"name": "campaign_delete", "arguments": {"campaign_id": cid}})
        assert running.is_error and "cancel it before deleting" in text_of(running)
        await call(client, "campaign_cancel", {"campaign_id": cid})
        await call(client, "campaign_wait", {"campaign_id": cid, "until": "complete", "timeout_s": 50})
        assert (await call(client, "campaign_delete", {"campaign_id": cid}))["deleted"]
        gone = await client.call_tool("tool_call", {"name": "campaign_status", "arguments": {"campaign_id": cid}})
        assert gone.is_error and "no campaign" in text_of(gone)
        assert not (data_dir / "sandboxes" / cid).exists()
        price = await call(client, "cost_pricing", {"model": "gpt-4o"})
        assert (price["input_per_mtok"], price["output_per_mtok"], price["known"]) == (2.5, 10.0, True)
        local = await call(client, "cost_pricing", {})
        assert local["model"] == "extractive" and local["input_per_mtok"] == 0


async def test_deleting_a_campaign_tells_its_subscribers(data_dir: Path) -> None:
    """A subscriber of a deleted campaign gets resources/updated; re-reading it then says it is gone."""
    recorder = Recorder()
    async with connect("inproc", "legacy", data_dir, message_handler=recorder) as client:
        started = await call(client, "campaign_start", {"question": QUESTION})
        cid, uri = started["campaign_id"], started["resources"]["status"]
        await call(client, "campaign_wait", {"campaign_id": cid, "until": "complete", "timeout_s": 30})
        await client.subscribe_resource(uri)
        before = len(recorder.notifications)
        assert (await call(client, "campaign_delete", {"campaign_id": cid}))["deleted"]
        with anyio.fail_after(30):
            await recorder.wait_for(
                lambda r: any(
                    isinstance(n, types.ResourceUpdatedNotification) and str(n.params.uri) == uri
                    for n in r.notifications[before:]
                )
            )
        with pytest.raises(MCPError):
            await client.read_resource(uri)
