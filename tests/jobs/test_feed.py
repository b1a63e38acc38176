"""The campaign feed: announce publishes every campaign URI on the bus; follow wakes on it."""

from __future__ import annotations

import anyio
import pytest
from mcp.server.subscriptions import InMemorySubscriptionBus

from deepr_mcp.errors import InvalidInput, NotFound
from deepr_mcp.jobs.feed import CampaignFeed
from deepr_mcp.jobs.models import BudgetQuestion, CampaignPhase
from deepr_mcp.jobs.notifier import Notifier, Update
from tests.doubles import BusRecorder, MemoryCampaignStore, new_campaign


def feed_over(*campaigns):
    store = MemoryCampaignStore(*campaigns)
    bus = InMemorySubscriptionBus()
    return store, bus, CampaignFeed(store, bus)


async def test_announce_publishes_every_campaign_uri_in_order_and_counts() -> None:
    _store, bus, feed = feed_over()
    seen = BusRecorder(bus)
    await feed.announce("c1")
    assert seen.uris == [f"deepr://campaigns/c1/{kind}" for kind in ("status", "plan", "beliefs", "report")]
    await feed.announce_expert("e1")
    assert seen.uris[4:] == [f"deepr://experts/e1/{kind}" for kind in ("profile", "beliefs", "gaps")]
    assert feed.announced == 1


async def test_wait_changed_wakes_every_waiter_and_times_out() -> None:
    """Moved here from the Notifier's tests: waiting is the feed's job now, woken through the bus."""
    _store, _bus, feed = feed_over()
    woke: list[bool] = []

    async def waiter() -> None:
        woke.append(await feed.wait_changed("c1", 5))

    async with anyio.create_task_group() as tg:
        for _ in range(1000):
            tg.start_soon(waiter)
        await anyio.sleep(0.05)
        await feed.announce("c1")
    assert woke == [True] * 1000
    assert await feed.wait_changed("c1", 0.01) is False


async def test_the_notifier_fans_out_what_the_feed_announces() -> None:
    _store, bus, feed = feed_over()
    got: list[str] = []
    delivered = anyio.Event()

    async def send(update: Update) -> None:
        got.append(update.uri)
        delivered.set()

    async with Notifier(bus) as notifier:
        notifier.subscribe("a", "deepr://campaigns/c1/status", send)
        await feed.announce("c1")
        with anyio.fail_after(5):
            await delivered.wait()
    assert got == ["deepr://campaigns/c1/status"]


async def test_follow_yields_now_then_each_change_until_complete() -> None:
    campaign = new_campaign()
    store, _bus, feed = feed_over(campaign)
    seen: list[tuple[str, int]] = []

    async def drive() -> None:
        for phase in (CampaignPhase.PLANNING, CampaignPhase.EXECUTING, CampaignPhase.COMPLETE):
            await anyio.sleep(0.01)
            current = await store.get(campaign.id)
            current.phase = phase
            saved = await store.save(current)
            await feed.announce(saved.id)

    async with anyio.create_task_group() as tg:
        tg.start_soon(drive)
        with anyio.fail_after(10):
            async for update in feed.follow(campaign.id, "complete"):
                seen.append((update.phase.value, update.version))
    assert seen[0] == ("queued", 0)
    assert seen[-1][0] == "complete"
    assert [v for _, v in seen] == sorted({v for _, v in seen})  # each yield is a newer version


async def test_follow_ends_at_once_when_already_satisfied() -> None:
    done = new_campaign(phase=CampaignPhase.CANCELLED)
    _store, _bus, feed = feed_over(done)
    with anyio.fail_after(5):
        updates = [c async for c in feed.follow(done.id, "change")]
    assert len(updates) == 1 and updates[0].phase == CampaignPhase.CANCELLED


async def test_follow_until_decision_stops_at_the_budget_question() -> None:
    campaign = new_campaign()
    store, _bus, feed = feed_over(campaign)

    async def ask() -> None:
        await anyio.sleep(0.01)
        current = await store.get(campaign.id)
        current.phase = CampaignPhase.AWAITING_APPROVAL
        current.open_question = BudgetQuestion(id="q1", estimated_cost=0.5, spent=0.1, budget=0.2, step="plan")
        await feed.announce((await store.save(current)).id)

    async with anyio.create_task_group() as tg:
        tg.start_soon(ask)
        with anyio.fail_after(10):
            updates = [c async for c in feed.follow(campaign.id, "decision")]
    assert updates[-1].open_question is not None and updates[-1].open_question.id == "q1"


async def test_follow_heartbeat_yields_without_a_change() -> None:
    campaign = new_campaign()
    _store, _bus, feed = feed_over(campaign)
    versions = []
    with anyio.move_on_after(5):
        async for update in feed.follow(campaign.id, "complete", heartbeat_s=0.01):
            versions.append(update.version)
            if len(versions) == 3:
                break
    assert versions == [0, 0, 0]


async def test_follow_refuses_unknown_ids_and_future_versions_before_waiting() -> None:
    campaign = new_campaign()
    _store, _bus, feed = feed_over(campaign)
    with pytest.raises(NotFound):
        await anext(feed.follow("nope"))
    with pytest.raises(InvalidInput, match="since=9"):
        await anext(feed.follow(campaign.id, since=9))


async def test_a_change_between_read_and_wait_is_not_missed() -> None:
    """The wake-up is registered before the store is read, so an announce right after the read counts."""
    campaign = new_campaign()
    store, _bus, feed = feed_over(campaign)
    updates = feed.follow(campaign.id, "change")
    first = await anext(updates)
    current = await store.get(campaign.id)
    await feed.announce((await store.save(current)).id)  # before the follower waits again
    with anyio.fail_after(5):
        second = await anext(updates)
    assert second.version == first.version + 1
    await updates.aclose()
