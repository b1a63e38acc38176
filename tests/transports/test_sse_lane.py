"""Pushed updates written straight to a GET event stream (``transports/sse_lane.py``), over real sockets.

The server runs in-process under uvicorn on an ephemeral loopback port (the test publishes through
its Notifier and bus). Raw clients read the stream's bytes; SDK clients parse it, in both eras.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

import aiohttp
import anyio
import mcp_types as types
from mcp import Client
from mcp.server.subscriptions import ResourceUpdated
from mcp.shared.message import SessionMessage
from sse_starlette.event import ensure_bytes

from deepr_mcp.config import Settings
from deepr_mcp.jobs.notifier import META_AT, Update
from deepr_mcp.transports import sse_lane
from deepr_mcp.transports.push import prepared, sse_body
from deepr_mcp.transports.sessions import ReapingSessionManager
from deepr_mcp.transports.sse_lane import open_lanes
from tests.clients import HANDSHAKE_VERSION, Recorder
from tests.servers import inprocess_http, inprocess_services

URI = "deepr://campaigns/clane/status"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class RawClient:
    """A handshake-era client over aiohttp that reads its GET stream's SSE frames as bytes."""

    def __init__(self, http: aiohttp.ClientSession, base: str) -> None:
        self.http, self.url = http, f"{base}/mcp"
        self.headers: dict[str, str] = {}
        self.stream: aiohttp.ClientResponse | None = None

    async def open(self, *uris: str) -> RawClient:
        params = {
            "protocolVersion": HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        }
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
        async with self.http.post(self.url, json=init, headers=ACCEPT) as resp:
            session = resp.headers["mcp-session-id"]
            await resp.read()
        self.headers = {**ACCEPT, "mcp-session-id": session, "mcp-protocol-version": HANDSHAKE_VERSION}
        await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        await self.attach()
        for n, uri in enumerate(uris, start=2):
            await self.post({"jsonrpc": "2.0", "id": n, "method": "resources/subscribe", "params": {"uri": uri}})
        return self

    async def attach(self) -> None:
        self.stream = await self.http.get(self.url, headers={**self.headers, "Accept": "text/event-stream"})
        assert self.stream.status == 200, await self.stream.text()

    async def post(self, body: dict[str, Any]) -> None:
        async with self.http.post(self.url, json=body, headers=self.headers) as resp:
            assert resp.status in (200, 202), await resp.text()
            await resp.read()

    async def frame(self) -> bytes:
        assert self.stream is not None
        return await self.stream.content.readuntil(b"\r\n\r\n")

    async def updated(self) -> tuple[bytes, dict[str, Any]]:
        """The next ``resources/updated`` frame (skipping pings and other messages) and its params."""
        while True:
            raw = await self.frame()
            if b"notifications/resources/updated" in raw:
                data = raw.split(b"data: ", 1)[1].rstrip(b"\r\n")
                return raw, types.ResourceUpdatedNotification.model_validate_json(data).params.model_dump(by_alias=True)


def stamps(recorder: Recorder) -> set[str]:
    return {
        n.params.meta[META_AT]
        for n in recorder.notifications
        if isinstance(n, types.ResourceUpdatedNotification) and n.params.meta
    }


async def until(predicate: Any) -> None:
    with anyio.fail_after(30):  # a hang guard, not a speed assertion
        while not predicate():  # noqa: ASYNC110 - server-side state, no event to await
            await anyio.sleep(0.02)


def test_the_pushed_frame_is_the_bytes_the_sdks_get_stream_writes() -> None:
    update = Update(URI, "2026-11-23T18:00:00+00:00", 7)
    sdk_event = {"event": "message", "data": prepared(update).model_dump_json(by_alias=True, exclude_unset=True)}
    body = sse_body(update)
    assert body["body"] == ensure_bytes(sdk_event, "\r\n")  # what sse-starlette writes for the SDK's event
    assert body["more_body"] is True
    assert sse_body(update) is body  # made once per update, shared by every subscriber


def test_no_lane_for_a_session_with_an_event_store() -> None:
    class Transport:
        _event_store = object()
        _write_stream = object()

    manager = ReapingSessionManager.__new__(ReapingSessionManager)
    manager._server_instances = {"s1": Transport()}  # type: ignore[dict-item]
    assert manager.push_stream_of("s1") is None
    Transport._event_store = None  # type: ignore[assignment]
    assert manager.push_stream_of("s1") is Transport._write_stream
    assert manager.push_stream_of("unknown") is None


async def test_pushes_take_the_lane_and_the_sdks_own_messages_still_share_the_stream(settings: Settings) -> None:
    async with inprocess_services(settings) as services, inprocess_http(services) as base, AsyncExitStack() as stack:
        http = await stack.enter_async_context(aiohttp.ClientSession())
        raw = await RawClient(http, base).open(URI)
        recorder = Recorder()
        sdk = await stack.enter_async_context(Client(f"{base}/mcp", mode="legacy", message_handler=recorder))
        await sdk.subscribe_resource(URI)
        await until(lambda: open_lanes() == 2)  # one per GET stream (the SDK client attaches its own)

        published = [await services.notifier.publish(URI) for _ in range(3)]
        with anyio.fail_after(30):
            await recorder.wait_for(lambda r: published[-1] in stamps(r))
            seen = []
            while published[-1] not in seen:
                frame, params = await raw.updated()
                assert frame.startswith(b"event: message\r\ndata: {") and frame.endswith(b"}\r\n\r\n")
                assert params["uri"] == URI and params["_meta"]["deepr/subscriberCount"] == 2
                seen.append(params["_meta"][META_AT])

            # A message on the SDK's own path (here a log notification) reaches the same stream, whole.
            note = types.JSONRPCNotification(
                jsonrpc="2.0", method="notifications/message", params={"level": "info", "data": "via the SDK"}
            )
            for stream in list(sse_lane._lanes):
                await stream.send(SessionMessage(message=note))  # type: ignore[attr-defined]
            last = await services.notifier.publish(URI)
            got_log = got_last = False
            while not (got_log and got_last):
                frame = await raw.frame()
                got_log |= b"via the SDK" in frame
                got_last |= last.encode() in frame
            await recorder.wait_for(lambda r: r.saw("notifications/message") and last in stamps(r))


async def test_a_client_that_disconnects_mid_stream_closes_its_lane_and_others_keep_being_served(
    settings: Settings,
) -> None:
    async with inprocess_services(settings) as services, inprocess_http(services) as base, AsyncExitStack() as stack:
        http = await stack.enter_async_context(aiohttp.ClientSession())
        leaving, staying = await RawClient(http, base).open(URI), await RawClient(http, base).open(URI)
        await until(lambda: open_lanes() == 2)
        first = await services.notifier.publish(URI)
        with anyio.fail_after(30):
            assert (await leaving.updated())[1]["_meta"][META_AT] == first
        assert leaving.stream is not None
        leaving.stream.close()  # mid-stream: the socket goes, the session stays
        await until(lambda: open_lanes() == 1)

        for _ in range(3):  # pushes to the gone stream take the SDK's path (dropped there), the rest go on
            latest = await services.notifier.publish(URI)
        with anyio.fail_after(30):
            while (await staying.updated())[1]["_meta"][META_AT] != latest:
                pass
        assert services.notifier.subscriber_count(URI) == 2  # the session lives on; it may reattach

        await leaving.attach()  # a new GET stream for the same session gets a new lane
        await until(lambda: open_lanes() == 2)
        again = await services.notifier.publish(URI)
        with anyio.fail_after(30):
            while (await leaving.updated())[1]["_meta"][META_AT] != again:
                pass


async def test_a_slow_reader_gets_the_final_update_without_holding_up_a_fast_one(settings: Settings) -> None:
    async with inprocess_services(settings) as services, inprocess_http(services) as base, AsyncExitStack() as stack:
        http = await stack.enter_async_context(aiohttp.ClientSession())
        slow, fast = await RawClient(http, base).open(URI), await RawClient(http, base).open(URI)
        await until(lambda: open_lanes() == 2)
        published = [await services.notifier.publish(URI) for _ in range(50)]
        with anyio.fail_after(30):
            while (await fast.updated())[1]["_meta"][META_AT] != published[-1]:
                pass  # the fast reader is done while the slow one has not read a byte
            while True:
                await anyio.sleep(0.01)  # reads slowly, a frame at a time
                if (await slow.updated())[1]["_meta"][META_AT] == published[-1]:
                    break


async def test_both_eras_get_bus_updates_side_by_side(settings: Settings) -> None:
    """A 2025-11-25 GET stream (through its lane) and a 2026-07-28 ``subscriptions/listen`` stream
    (the SDK's, untouched) on one server each get every update published on the bus."""
    async with inprocess_services(settings) as services, inprocess_http(services) as base, AsyncExitStack() as stack:
        http = await stack.enter_async_context(aiohttp.ClientSession())
        handshake = await RawClient(http, base).open(URI)
        modern = await stack.enter_async_context(Client(f"{base}/mcp", mode="auto"))
        await until(lambda: open_lanes() == 1)
        seen: list[str] = []
        async with modern.listen(resource_subscriptions=[URI]) as sub:
            await until(lambda: services.notifier.subscriber_count(URI) == 2)
            events = aiter(sub)
            with anyio.fail_after(30):
                for _ in range(3):  # one at a time: the SDK's listen stream may coalesce a burst
                    await services.bus.publish(ResourceUpdated(uri=URI))
                    seen.append((await anext(events)).uri)
                    assert (await handshake.updated())[1]["uri"] == URI
        assert seen == [URI] * 3
        assert open_lanes() == 1  # the listen stream is a POST: it never gets a lane
