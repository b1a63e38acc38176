"""The Notifier's fan-out contract: coalescing, isolation from stalled subscribers (waiting: test_feed.py)."""

from __future__ import annotations

import anyio

from deepr_mcp.jobs.notifier import META_COUNT, Notifier, Update


async def test_each_subscriber_gets_updates_and_bursts_coalesce() -> None:
    """A burst published while each subscriber's first send is still in flight costs it one more send.

    The first send is held by a gate until the burst is over (not by a sleep: a loaded machine can
    stall the test between publishes for longer than any sleep, and a free writer would then send
    mid-burst updates); afterwards each subscriber gets the burst's last update.
    """
    got: dict[str, list[tuple[str, int, str]]] = {"a": [], "b": []}
    gate = anyio.Event()

    def sender(name: str):
        async def send(update: Update) -> None:
            got[name].append((update.uri, update.meta[META_COUNT], update.published_at))
            await gate.wait()  # a slow client: later updates pile up behind this one

        return send

    async with Notifier() as notifier:
        notifier.subscribe("a", "deepr://campaigns/c1/status", sender("a"))
        notifier.subscribe("b", "deepr://campaigns/c1/status", sender("b"))
        stamps = [await notifier.publish("deepr://campaigns/c1/status") for _ in range(20)]
        gate.set()
        with anyio.fail_after(10):  # a hang guard: waits for the last update to be sent
            while any(not sent or sent[-1][2] != stamps[-1] for sent in got.values()):  # noqa: ASYNC110
                await anyio.sleep(0.01)
    for name in "ab":
        assert 1 <= len(got[name]) <= 3, got[name]  # 20 updates coalesced into a few sends
        assert all(count == 2 for _, count, _ in got[name])


async def test_stalled_subscriber_is_dropped_and_never_delays_others() -> None:
    """The quick subscriber gets the update published while the stalled send is in flight and its
    subscriber still there (so nothing waited for its timeout); once the send timeout is short
    enough, the stalled one is dropped. No sleep or clock reading decides the outcome."""
    fast: list[str] = []
    stalled = anyio.Event()

    async def stuck(update: Update) -> None:
        stalled.set()
        await anyio.sleep(3600)

    async def quick(update: Update) -> None:
        fast.append(update.published_at)

    async with Notifier(send_timeout_s=3600) as notifier:  # nobody times out until the test says so
        notifier.subscribe("stuck", "u:1", stuck)
        notifier.subscribe("quick", "u:1", quick)
        await notifier.publish("u:1")
        with anyio.fail_after(10):  # hang guards, not speed assertions
            await stalled.wait()
            last = await notifier.publish("u:1")
            while not fast or fast[-1] != last:  # noqa: ASYNC110 - the writers run in the background
                await anyio.sleep(0.01)
        # the quick one got the update published while the other send stalls, not held up by it:
        (held,) = [s for s in notifier.subscribers_of("u:1") if s.connection_id == "stuck"]
        assert held.sending and not held.closed  # its send is still in flight
        notifier.send_timeout_s = 0.2  # the watchdog reads it on every round
        with anyio.fail_after(10):
            while notifier.subscriber_count("u:1") != 1:  # noqa: ASYNC110 - the watchdog drops it
                await anyio.sleep(0.01)
        assert notifier.subscriptions_of("stuck") == set() and held.closed


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
