"""Subscriptions and listen streams are limited per principal and per request, so no principal locks
the others out.

The SDK's ListenHandler caps open streams for the whole server (1,024): one principal opening them
all left every other principal with "Subscription limit reached". And the per-connection cap on
subscriptions was checked only at the handshake, so one listen could name 10,000 URIs. A principal's
``resources/subscribe`` subscriptions and the URIs of its listen streams are summed over all its
sessions against ``subscriptions.max_per_principal``: more sessions do not buy more.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.principals import as_principal, principal_server

LIMITS = {"subscriptions": {"max_streams_per_principal": 3, "max_per_connection": 5}}
PER_PRINCIPAL = {"subscriptions": {"max_per_connection": 4, "max_per_principal": 6, "max_streams_per_principal": 3}}


def uris(n: int, tag: str = "x") -> list[str]:
    return [f"https://example.test/{tag}/{i}" for i in range(n)]


async def test_one_principal_cannot_hold_every_listen_stream(data_dir: Path) -> None:
    async with principal_server(data_dir, **LIMITS) as (_, base):
        async with AsyncExitStack() as held, as_principal(base, "researcher", "modern") as greedy:
            for i in range(3):
                with anyio.fail_after(30):
                    await held.enter_async_context(greedy.listen(resource_subscriptions=uris(1, f"s{i}")))
            with pytest.raises(MCPError) as refused, anyio.fail_after(30):
                async with greedy.listen(resource_subscriptions=uris(1, "one-too-many")):
                    pass
            message = str(refused.value)
            assert "already holds 3 open listen streams" in message, message
            assert "subscriptions.max_streams_per_principal" in message
            async with as_principal(base, "other", "modern") as other:
                with anyio.fail_after(30):
                    async with other.listen(resource_subscriptions=uris(1, "mine")):
                        pass  # another principal is not locked out
            await held.aclose()  # the greedy one's streams close: it may listen again
            async with greedy.listen(resource_subscriptions=uris(1, "again")):
                pass


@pytest.mark.parametrize("count", [6, 10_000])
async def test_a_listen_naming_too_many_uris_is_refused_before_any_is_checked(count: int, data_dir: Path) -> None:
    async with principal_server(data_dir, **LIMITS) as (_, base):
        async with as_principal(base, "researcher", "modern") as client:
            with pytest.raises(MCPError) as refused, anyio.fail_after(30):
                async with client.listen(resource_subscriptions=uris(count)):
                    pass
            assert refused.value.error.code == -32602
            assert f"names {count} resources; at most 5 per request" in str(refused.value)
            async with client.listen(resource_subscriptions=uris(5)):  # at the limit: served
                pass


async def subscribe_refused(client: Client, uri: str) -> str:
    """The refusal's message; the call must be a JSON-RPC error (-32602), never a crash or a hang."""
    with pytest.raises(MCPError) as refused, anyio.fail_after(30):
        await client.subscribe_resource(uri)
    assert refused.value.error.code == -32602, refused.value.error
    return refused.value.error.message


async def test_a_principal_s_subscriptions_are_capped_across_its_sessions(data_dir: Path) -> None:
    async with principal_server(data_dir, **PER_PRINCIPAL) as (_, base), AsyncExitStack() as sessions:
        second, third = [await sessions.enter_async_context(as_principal(base, "researcher")) for _ in range(2)]
        listens = await sessions.enter_async_context(as_principal(base, "researcher", "modern"))
        async with as_principal(base, "researcher") as first:  # innermost: it is closed mid-test
            with anyio.fail_after(30):
                for uri in uris(4, "first"):  # the per-connection cap...
                    await first.subscribe_resource(uri)
                for uri in uris(2, "second"):  # ...and a second session up to the principal's six
                    await second.subscribe_resource(uri)
                await second.subscribe_resource(uris(1, "second")[0])  # a repeat holds nothing more
            message = await subscribe_refused(third, "https://example.test/third/0")
            assert "principal 'researcher' already holds 6 subscriptions across its sessions" in message, message
            assert "subscriptions.max_per_principal" in message and "the 6 one principal may hold" in message

            async with as_principal(base, "other") as other, as_principal(base, "other", "modern") as other_listens:
                with anyio.fail_after(30):  # another principal is not locked out, in either era
                    for uri in uris(4, "mine"):
                        await other.subscribe_resource(uri)
                    async with other_listens.listen(resource_subscriptions=uris(2, "mine-too")):
                        pass

            with pytest.raises(MCPError) as listen_refused, anyio.fail_after(30):  # a listen's URIs count too
                async with listens.listen(resource_subscriptions=uris(2, "listen")):
                    pass
            assert "already holds 6 subscriptions" in str(listen_refused.value), listen_refused.value
            assert "2 more (one per URI of this listen)" in str(listen_refused.value)

            with anyio.fail_after(30):
                await first.unsubscribe_resource(uris(4, "first")[0])
                await third.subscribe_resource("https://example.test/third/0")  # the place it freed
            assert "already holds 6" in await subscribe_refused(third, "https://example.test/third/1")
        # ``first`` has ended: its three subscriptions go with it
        with anyio.fail_after(30):
            while True:  # the server forgets a session as its connection ends, just after the client leaves
                try:
                    async with listens.listen(resource_subscriptions=uris(3, "after")):
                        break
                except MCPError as exc:
                    assert "subscriptions.max_per_principal" in str(exc), exc
                    await anyio.sleep(0.05)
