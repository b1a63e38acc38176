"""HTTP session limits on a real server: abandoned sessions are closed, the cap reaps the oldest idle.

Raw HTTP clients play the ones that never send DELETE; the SDK client (which keeps its GET stream
open, so it is never idle) plays the active one. ``/healthz`` reports the live sessions and
``campaign_status`` the subscriber count, both read by polling with a generous cap: no test asserts
how long anything took.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.sse import sse_client

from tests.clients import HANDSHAKE_VERSION, call
from tests.servers import http_server

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def _message(body: str) -> dict[str, Any]:
    for line in body.splitlines():
        if line.startswith("data:"):
            return json.loads(line[5:])
    return json.loads(body)


class RawSession:
    """A handshake-era streamable HTTP session driven by hand, abandoned without DELETE."""

    def __init__(self, http: httpx2.AsyncClient, url: str) -> None:
        self.http, self.url, self.id, self.next_id = http, url, "", 1

    async def open(self) -> RawSession:
        params = {
            "protocolVersion": HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        }
        response = await self.http.post(
            self.url, headers=HEADERS, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
        )
        assert response.status_code == 200, response.text
        self.id = response.headers["mcp-session-id"]
        initialized = await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert initialized.status_code == 202, initialized.text
        return self

    async def post(self, message: dict[str, Any]) -> httpx2.Response:
        headers = {**HEADERS, "mcp-session-id": self.id, "mcp-protocol-version": HANDSHAKE_VERSION}
        return await self.http.post(self.url, headers=headers, json=message)

    async def request(self, method: str, params: dict[str, Any]) -> httpx2.Response:
        self.next_id += 1
        return await self.post({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})

    @asynccontextmanager
    async def listen(self, streams: httpx2.AsyncClient) -> AsyncIterator[None]:
        """Hold the session's standalone GET stream open (a request in flight) until the block ends."""
        headers = {"accept": "text/event-stream", "mcp-session-id": self.id, "mcp-protocol-version": HANDSHAKE_VERSION}
        async with streams.stream("GET", self.url, headers=headers) as stream:
            assert stream.status_code == 200
            yield

    async def subscribe(self, uri: str) -> None:
        response = await self.request("resources/subscribe", {"uri": uri})
        assert response.status_code == 200 and "result" in _message(response.text), response.text


async def _sessions(http: httpx2.AsyncClient, base: str) -> dict[str, int]:
    response = await http.get(f"{base}/healthz")
    return response.json()["sessions"]


async def _until(probe: Callable[[], Any], wanted: Callable[[Any], bool]) -> Any:
    """Poll ``probe`` until ``wanted`` holds (generous cap: this checks what happens, not how fast)."""
    with anyio.fail_after(60):
        while not wanted(value := await probe()):  # noqa: ASYNC110 - another process: only its answers tell
            await anyio.sleep(0.1)
    return value


async def _campaign(watcher: Client) -> tuple[str, str]:
    """A finished campaign to subscribe to: its status resource still counts subscribers, and no
    update races a client's exit (the SDK's SSE client can fail on a message that arrives as it closes)."""
    started = await call(watcher, "campaign_start", {"question": "Why did the first telegraph cable fail?"})
    cid = started["campaign_id"]
    wait = {"campaign_id": cid, "until": "complete", "timeout_s": 50}
    await _until(lambda: call(watcher, "campaign_wait", wait), lambda answer: answer["phase"] == "complete")
    return cid, started["resources"]["status"]


async def _subscribers(watcher: Client, campaign_id: str) -> int:
    return (await call(watcher, "campaign_status", {"campaign_id": campaign_id}))["subscriber_count"]


async def test_abandoned_sessions_close_after_the_idle_timeout_with_their_subscriptions(data_dir: Path) -> None:
    async with (
        http_server(data_dir, DEEPR_HTTP_SESSION_IDLE_TIMEOUT_S="3") as base,
        httpx2.AsyncClient(timeout=30) as http,
        httpx2.AsyncClient(timeout=None) as streams,
        Client(f"{base}/mcp", mode="auto") as watcher,  # 2026-07-28: one-shot requests, no session to count
    ):
        cid, status_uri = await _campaign(watcher)
        async with AsyncExitStack() as held:  # open GET streams keep the sessions busy while they are set up
            abandoned = []
            for _ in range(3):
                session = await RawSession(http, f"{base}/mcp").open()
                await held.enter_async_context(session.listen(streams))
                await session.subscribe(status_uri)
                abandoned.append(session)
            assert (await _sessions(http, base))["streamable_http"] == 3
            assert await _subscribers(watcher, cid) == 3
        # streams closed, no DELETE: the idle countdown runs out
        await _until(lambda: _sessions(http, base), lambda s: s["streamable_http"] == 0)
        await _until(lambda: _subscribers(watcher, cid), lambda n: n == 0)
        late = await abandoned[0].request("tools/list", {})
        assert late.status_code == 404 and "Session not found" in late.text  # initialize again, per the spec


async def test_at_the_cap_the_oldest_idle_session_makes_room_and_the_active_one_keeps_working(data_dir: Path) -> None:
    env = {"DEEPR_HTTP_MAX_SESSIONS": "3", "DEEPR_HTTP_SESSION_IDLE_TIMEOUT_S": "600"}
    async with http_server(data_dir, **env) as base, httpx2.AsyncClient(timeout=30) as http:
        url = f"{base}/mcp"
        async with Client(url, mode="legacy") as active:  # holds its GET stream open: never idle
            cid, status_uri = await _campaign(active)
            first = await RawSession(http, url).open()
            await first.subscribe(status_uri)
            second = await RawSession(http, url).open()
            assert await _subscribers(active, cid) == 1
            third = await RawSession(http, url).open()  # over the cap: the oldest idle (first) goes
            assert (await first.request("tools/list", {})).status_code == 404
            assert (await second.request("tools/list", {})).status_code == 200
            await _until(lambda: _subscribers(active, cid), lambda n: n == 0)
            await RawSession(http, url).open()  # second was just used, so third is now the oldest idle
            assert (await third.request("tools/list", {})).status_code == 404
            assert (await second.request("tools/list", {})).status_code == 200
            assert (await _sessions(http, base))["streamable_http"] == 3
            assert (await call(active, "campaign_status", {"campaign_id": cid}))["id"] == cid


async def test_with_every_session_busy_a_new_one_is_refused_with_503(data_dir: Path) -> None:
    async with (
        http_server(data_dir, DEEPR_HTTP_MAX_SESSIONS="2") as base,
        httpx2.AsyncClient(timeout=30) as http,
        httpx2.AsyncClient(timeout=None) as streams,
    ):
        url = f"{base}/mcp"
        busy = [await RawSession(http, url).open() for _ in range(2)]
        async with AsyncExitStack() as held:
            for session in busy:  # an open GET stream is a request in flight: the session is not idle
                await held.enter_async_context(session.listen(streams))
            refused = await http.post(url, headers=HEADERS, json={"jsonrpc": "2.0", "id": 0, "method": "initialize"})
            assert refused.status_code == 503 and "Too many open sessions" in refused.text
            for session in busy:
                assert (await session.request("tools/list", {})).status_code == 200


async def test_a_closed_legacy_sse_stream_is_gone_and_their_number_is_capped(data_dir: Path) -> None:
    async with (
        http_server(data_dir, DEEPR_HTTP_MAX_SESSIONS="1") as base,
        httpx2.AsyncClient(timeout=30) as http,
        Client(f"{base}/mcp", mode="auto") as watcher,
    ):
        cid, status_uri = await _campaign(watcher)
        async with Client(sse_client(f"{base}/sse"), mode="legacy") as legacy:
            await legacy.subscribe_resource(status_uri)
            assert await _subscribers(watcher, cid) == 1
            assert (await _sessions(http, base))["legacy_sse"] == 1
            refused = await http.get(f"{base}/sse", headers={"accept": "text/event-stream"})
            assert refused.status_code == 503 and "http.max_sessions" in refused.text
        await _until(lambda: _sessions(http, base), lambda s: s["legacy_sse"] == 0)
        await _until(lambda: _subscribers(watcher, cid), lambda n: n == 0)
        async with Client(sse_client(f"{base}/sse"), mode="legacy") as again:  # room again
            assert (await call(again, "server_info", {}))["name"] == "deepr-mcp"
