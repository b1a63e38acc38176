"""Listen streams are limited per principal and per request, so no principal locks the others out.

The SDK's ListenHandler caps open streams for the whole server (1,024): one principal opening them
all left every other principal with "Subscription limit reached". And the per-connection cap on
subscriptions was checked only at the handshake, so one listen could name 10,000 URIs.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from tests.principals import as_principal, principal_server

LIMITS = {"subscriptions": {"max_streams_per_principal": 3, "max_per_connection": 5}}


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
