"""Prepared ``resources/updated``: built once per update, the same bytes the SDK would write, on every transport."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp_types import JSONRPCNotification

from deepr_mcp.jobs.notifier import META_AT, META_COUNT, Notifier, Update
from deepr_mcp.transports.push import UPDATED, PreparedNotification, prepared
from tests.campaigns import QUESTION, SLOW, follow, pause
from tests.clients import Recorder, call, connect

URI = "deepr://campaigns/c1/status"


def test_prepared_text_is_what_the_sdk_would_write() -> None:
    params = {"uri": URI, "_meta": {META_COUNT: 3, META_AT: "2026-11-23T14:00:00+00:00"}}
    prepared = PreparedNotification.build(UPDATED, params)
    plain = JSONRPCNotification(jsonrpc="2.0", method=UPDATED, params=params)
    wire = prepared.model_dump_json(by_alias=True, exclude_unset=True)
    assert wire == plain.model_dump_json(by_alias=True, exclude_unset=True)
    assert types.ResourceUpdatedNotification.model_validate(json.loads(wire)).params.meta[META_COUNT] == 3
    # any other dump is computed as usual, not the stored text
    assert prepared.model_dump_json(indent=2) == plain.model_dump_json(indent=2)
    assert prepared.model_dump(by_alias=True, exclude_unset=True) == plain.model_dump(by_alias=True, exclude_unset=True)


async def test_one_message_per_update_shared_by_every_subscriber_and_bursts_coalesce() -> None:
    got: dict[str, list[Update]] = {f"s{n}": [] for n in range(50)}
    gate = anyio.Event()

    def sender(name: str):
        async def send(update: Update) -> None:
            got[name].append(update)
            await gate.wait()  # every subscriber busy with its first send while the burst arrives

        return send

    async with Notifier(writers=2, max_spare_writers=64) as notifier:
        for name in got:
            notifier.subscribe(name, URI, sender(name))
        first = await notifier.publish(URI)
        with anyio.fail_after(10):
            while sum(map(len, got.values())) < 2:  # noqa: ASYNC110 - waits for the writers to start
                await anyio.sleep(0.01)
        stamps = [await notifier.publish(URI) for _ in range(20)]
        gate.set()
        with anyio.fail_after(10):
            while any(not updates or updates[-1].published_at != stamps[-1] for updates in got.values()):  # noqa: ASYNC110
                await anyio.sleep(0.01)
    for updates in got.values():
        assert updates[-1].published_at == stamps[-1]  # everyone gets the final update
        assert len(updates) <= 3  # the burst of 20 coalesced (first, maybe one mid-burst, last)
        assert updates[-1].meta == {META_COUNT: 50, META_AT: stamps[-1]}
    finals = {id(prepared(updates[-1])) for updates in got.values()}
    assert len(finals) == 1  # one message object (one serialisation) for all 50 subscribers
    assert first <= stamps[0]


async def test_a_closed_connection_is_dropped_not_kept_as_a_ghost() -> None:
    async def closed(update: Update) -> None:
        raise anyio.ClosedResourceError

    delivered = anyio.Event()

    async def fine(update: Update) -> None:
        delivered.set()

    async with Notifier() as notifier:
        notifier.subscribe("gone", URI, closed)
        notifier.subscribe("here", URI, fine)
        await notifier.publish(URI)
        with anyio.fail_after(10):
            await delivered.wait()
            while notifier.subscriber_count(URI) != 1:  # noqa: ASYNC110 - server-side state
                await anyio.sleep(0.01)
        assert notifier.subscriptions_of("gone") == set()


@pytest.mark.parametrize("transport", ["stdio", "http", "sse"])
async def test_subscribers_get_prepared_updates_through_complete(transport: str, data_dir: Path) -> None:
    """A real client on each handshake transport parses every prepared update and sees the final state."""
    recorder = Recorder()
    async with connect(transport, "legacy", data_dir, config=SLOW, message_handler=recorder) as client:
        started = await call(client, "campaign_start", {"question": QUESTION})
        uri, cid = started["resources"]["status"], started["campaign_id"]
        await pause(client, cid)
        await client.subscribe_resource(uri)
        await call(client, "campaign_resume", {"campaign_id": cid})
        assert (await follow(client, cid))[-1]["phase"] == "complete"
        finished = json.loads((await client.read_resource(uri)).contents[0].text)["finished_at"]

        def latest(r: Recorder) -> str:
            stamps = [
                n.params.meta[META_AT]
                for n in r.notifications
                if isinstance(n, types.ResourceUpdatedNotification) and n.params.meta
            ]
            return max(stamps, default="")

        with anyio.fail_after(10):
            await recorder.wait_for(lambda r: latest(r) >= finished)
    updates = [n for n in recorder.notifications if isinstance(n, types.ResourceUpdatedNotification)]
    assert {str(n.params.uri) for n in updates} == {uri}
    assert all(n.params.meta[META_COUNT] == 1 for n in updates)
