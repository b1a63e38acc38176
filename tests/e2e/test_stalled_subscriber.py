"""A subscriber that stops reading its HTTP stream must not delay anyone else, and is dropped.

Over real sockets: the server runs in-process under uvicorn on an ephemeral loopback port (so the
test can flood the stalled client), two SDK clients and one raw client that never reads its event
stream subscribe to one URI. The stalled client's buffers are filled until a send to it blocks;
the others must still get every update while that send is stuck, and the stalled one is dropped
after the send timeout.
"""

from __future__ import annotations

from contextlib import AsyncExitStack

import aiohttp
import anyio
import mcp_types as types
from mcp import Client

from deepr_mcp.config import Settings
from deepr_mcp.jobs.notifier import META_AT
from tests.clients import HANDSHAKE_VERSION, Recorder
from tests.servers import inprocess_http, inprocess_services

SHARED = "deepr://campaigns/cshared/status"
CLOG = "deepr://campaigns/cclog/status"
"""Only the stalled client subscribes to this one; the test floods it."""
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def stalled_client(http: aiohttp.ClientSession, base: str) -> aiohttp.ClientResponse:
    """Handshake, open the GET event stream, subscribe to both URIs; the caller never reads the stream."""
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "stalled", "version": "1"},
        },
    }
    async with http.post(f"{base}/mcp", json=init, headers=ACCEPT) as resp:
        session = resp.headers["mcp-session-id"]
        headers = {**ACCEPT, "mcp-session-id": session, "mcp-protocol-version": HANDSHAKE_VERSION}
        await resp.read()
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    async with http.post(f"{base}/mcp", json=initialized, headers=headers) as resp:
        assert resp.status in (200, 202), await resp.text()
    stream = await http.get(f"{base}/mcp", headers={**headers, "Accept": "text/event-stream"})
    for n, uri in enumerate((SHARED, CLOG), start=2):
        request = {"jsonrpc": "2.0", "id": n, "method": "resources/subscribe", "params": {"uri": uri}}
        async with http.post(f"{base}/mcp", json=request, headers=headers) as resp:
            assert resp.status == 200, await resp.text()
    return stream


def stamps(recorder: Recorder) -> set[str]:
    return {
        n.params.meta[META_AT]
        for n in recorder.notifications
        if isinstance(n, types.ResourceUpdatedNotification) and str(n.params.uri) == SHARED and n.params.meta
    }


async def test_a_stalled_http_subscriber_never_delays_the_others_and_is_dropped(settings: Settings) -> None:
    settings.subscriptions.send_timeout_s = 5.0
    async with inprocess_services(settings) as services, inprocess_http(services) as base, AsyncExitStack() as stack:
        notifier = services.notifier
        # Nobody times out until the readers were served: flooding and serving them can take longer
        # than 5 s on a loaded machine, and the stalled client would then be dropped before the check
        # that it was still there. The watchdog reads the timeout on every round; it is set back below.
        notifier.send_timeout_s = 3600.0
        recorders = [Recorder(), Recorder()]
        for recorder in recorders:
            client = await stack.enter_async_context(Client(f"{base}/mcp", mode="legacy", message_handler=recorder))
            await client.subscribe_resource(SHARED)
        http = await stack.enter_async_context(aiohttp.ClientSession())
        stream = await stalled_client(http, base)
        stack.callback(stream.close)
        assert notifier.subscriber_count(SHARED) == 3
        (stalled,) = notifier.subscribers_of(CLOG)

        # Flood the stalled client's own URI until one send to it stays blocked (its buffers are full).
        with anyio.fail_after(120):
            while True:
                await notifier.publish(CLOG)
                for _ in range(1000):
                    if not stalled.pending:
                        break
                    await anyio.sleep(0.001)
                if stalled.pending:
                    break
        assert stalled.sending and not stalled.closed, "a send to the stalled client should be in flight, blocked"

        # Every update reaches the readers while that send is stuck.
        published = {await notifier.publish(SHARED) for _ in range(5)}
        with anyio.fail_after(30):  # a hang guard, not a speed assertion
            for recorder in recorders:
                await recorder.wait_for(lambda r: stamps(r) >= {max(published)})
        assert stalled.sending and not stalled.closed, "the readers were served while the stalled send was stuck"

        # After the send timeout the stalled client is dropped, its subscriptions with it.
        notifier.send_timeout_s = settings.subscriptions.send_timeout_s
        with anyio.fail_after(60):
            while notifier.subscriber_count(SHARED) != 2:  # noqa: ASYNC110 - server-side state, no event to await
                await anyio.sleep(0.05)
        assert notifier.subscriptions_of(stalled.connection_id) == set()
        last = await notifier.publish(SHARED)
        with anyio.fail_after(30):
            for recorder in recorders:
                await recorder.wait_for(lambda r: last in stamps(r))
