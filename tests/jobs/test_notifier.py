"""The Notifier's fan-out contract: coalescing, isolation from stalled subscribers (waiting: test_feed.py)."""

from __future__ import annotations

import anyio

from deepr_mcp.jobs.notifier import META_COUNT, Notifier, Update


async def test_each_subscriber_gets_updates_and_bursts_coalesce() -> None:
    got: dict[str, list[tuple[str, int]]] = {"a": [], "b": []}

    def sender(name: str):
        async def send(update: Update) -> None:
            got[name].append((update.uri, update.meta[META_COUNT]))
            await anyio.sleep(0.05)  # a slowish client: later updates pile up behind this one

        return send

    async with Notifier() as notifier:
        notifier.subscribe("a", "deepr://campaigns/c1/status", sender("a"))
        notifier.subscribe("b", "deepr://campaigns/c1/status", sender("b"))
        for _ in range(20):
            await notifier.publish("deepr://campaigns/c1/status")
        await anyio.sleep(0.3)
    for name in "ab":
        assert 1 <= len(got[name]) <= 3, got[name]  # 20 updates coalesced into a few sends
        assert all(count == 2 for _, count in got[name])


async def test_stalled_subscriber_is_dropped_and_never_delays_others() -> None:
    fast: list[float] = []
    stalled = anyio.Event()

    async def stuck(update: Update) -> None:
        stalled.set()
        await anyio.sleep(3600)

    async def quick(update: Update) -> None:
        fast.append(anyio.current_time())

    async with Notifier(send_timeout_s=0.2) as notifier:
        notifier.subscribe("stuck", "u:1", stuck)
        notifier.subscribe("quick", "u:1", quick)
        start = anyio.current_time()
        await notifier.publish("u:1")
        await stalled.wait()
        await notifier.publish("u:1")
        await anyio.sleep(0.05)
        assert len(fast) == 2 and fast[-1] - start < 0.2  # not held up by the stalled one
        await anyio.sleep(0.3)
        assert notifier.subscriber_count("u:1") == 1  # the stalled one was dropped
        assert notifier.subscriptions_of("stuck") == set()


async def test_unsubscribe_remove_and_counts() -> None:
    async def send(update: Update) -> None:
        return None

    async with Notifier(max_subscriptions_per_connection=2) as notifier:
        notifier.subscribe("a", "u:1", send)
        notifier.subscribe("a", "u:2", send)
        notifier.listen_opened(["u:1"])
        assert notifier.subscriber_count("u:1") == 2
        try:
            notifier.subscribe("a", "u:3", send)
            raise AssertionError("cap not enforced")
        except Exception as exc:
            assert "most allowed" in str(exc)
        notifier.unsubscribe("a", "u:1")
        notifier.listen_closed(["u:1"])
        assert notifier.subscriber_count("u:1") == 0
        notifier.remove("a")
        assert notifier.subscriber_count("u:2") == 0


async def test_more_stalled_subscribers_than_writers_still_never_delay_the_others() -> None:
    """Spare writers take over while stalled sends are in flight; they retire once those end."""
    quick_got: list[str] = []
    quick_event = anyio.Event()
    release = anyio.Event()

    async def stuck(update: Update) -> None:
        await release.wait()

    async def quick(update: Update) -> None:
        quick_got.append(update.uri)
        quick_event.set()

    async with Notifier(send_timeout_s=30, writers=2) as notifier:
        for n in range(5):
            notifier.subscribe(f"stuck{n}", "u:1", stuck)
        notifier.subscribe("quick", "u:2", quick)
        await notifier.publish("u:1")  # five sends in flight, more than the two writers
        await anyio.sleep(0.01)
        await notifier.publish("u:2")
        with anyio.fail_after(10):  # a hang guard: without spares this waits the 30 s timeout
            await quick_event.wait()
        assert quick_got == ["u:2"]
        assert notifier.subscriber_count("u:1") == 5  # nobody was dropped: they are slow, not yet timed out
        assert len(notifier._writers) - notifier._stuck >= 2
        release.set()
        with anyio.fail_after(10):
            while len(notifier._writers) > 2 or notifier._stuck:
                await notifier.publish("u:2")  # work to do makes idle spares notice they can retire
                await anyio.sleep(0.05)
        assert all(s.delivered == 1 for s in notifier.subscribers_of("u:1"))


async def test_counts_lists_every_uri_with_subscribers_in_both_eras() -> None:
    async def send(update: Update) -> None:
        pass

    async with Notifier() as notifier:
        notifier.subscribe("a", "u:1", send)
        notifier.subscribe("b", "u:1", send)
        notifier.subscribe("b", "u:2", send)
        notifier.listen_opened(["u:2", "u:3"])
        assert notifier.counts() == {"u:1": 2, "u:2": 2, "u:3": 1}
        notifier.unsubscribe("a", "u:1")
        notifier.remove("b")
        notifier.listen_closed(["u:2", "u:3"])
        assert notifier.counts() == {}
