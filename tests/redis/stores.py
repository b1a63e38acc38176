"""One way to open the store under contract: the embedded default, or the Redis one on the test's real server.

The contract tests run every case against both backends; each names how to build its two stores and
this opens the one the parameter asks for and closes it afterwards.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import pytest

from deepr_mcp.redis.client import open_checked

S = TypeVar("S")


@asynccontextmanager
async def store_under_contract(
    request: pytest.FixtureRequest,
    embedded: Callable[[], S],
    on_redis: Callable[..., S],
) -> AsyncIterator[S]:
    """``request.param`` ``"redis"`` opens ``on_redis(client, url=...)``; anything else builds the embedded default."""
    if request.param != "redis":
        store: Any = embedded()
        yield store
        if hasattr(store, "close"):
            store.close()
        return
    url = request.getfixturevalue("redis_server").url
    client = await open_checked(url, None, "deepr:")
    try:
        yield on_redis(client, url=url)
    finally:
        await client.aclose()
