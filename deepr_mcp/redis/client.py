"""The Redis connection: parse ``store.url``, connect with backoff, and turn outages into clear errors.

The client reconnects on its own (a broken connection is dropped from the pool and the next
command dials again, retried with exponential backoff); while the engine stays down, every call
that needs it raises ``StoreUnavailable`` naming the engine, never a driver traceback.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import TypeVar
from urllib.parse import unquote, urlsplit

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import AuthenticationError, ConnectionError, RedisError, ResponseError, TimeoutError

from deepr_mcp.config.store import redact
from deepr_mcp.errors import DeeprError
from deepr_mcp.jobs.store import StoreUnavailable

__all__ = [
    "REMEMBERED_WRITES",
    "SCHEMA_VERSION",
    "TOMBSTONE_MS",
    "StoreUnavailable",
    "call",
    "connect",
    "open_checked",
    "write_id",
]

T = TypeVar("T")
SCHEMA_VERSION = "1"
"""The layout of deepr-mcp's keys in the engine; another value there means another version's data."""
REMEMBERED_WRITES = 16
"""How many of a record's latest write ids it keeps, so a retried write script can recognise its own."""
TOMBSTONE_MS = 60_000
"""How long a deleted record's tombstone (the delete's write id) stays, for a retried delete to find."""


REFUSALS = frozenset({"NOREPLICAS", "READONLY", "OOM", "MISCONF", "BUSY", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN"})
"""Replies of an engine that is up but takes no writes now (too few replicas, a read-only replica after a
failover, out of memory, a failing disk, a busy script): an outage like a refused connection, never a
driver error. The refused command did not run."""


def write_id() -> str:
    """A fresh id for one write, sent with its compare-and-set script.

    ``connect`` retries a command after a connection error; if the error came after Redis ran the
    script, the retry runs it again. A script that stores this id with the record finds it on that
    second run and answers success, instead of reporting its own write as a concurrent one.
    """
    return secrets.token_hex(8)


def connect(url: str, password: str | None = None, *, timeout_s: float = 2.0) -> aioredis.Redis:
    """A client that retries a failed command three times with backoff before giving up."""
    parts = urlsplit(url)
    return aioredis.Redis(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 6379,
        db=int(parts.path.strip("/") or "0"),
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else password,
        ssl=parts.scheme == "rediss",
        socket_connect_timeout=timeout_s,
        socket_timeout=timeout_s * 2,
        retry=Retry(ExponentialBackoff(cap=1.0, base=0.05), 3),
        retry_on_error=[ConnectionError, TimeoutError],
        decode_responses=True,
    )


async def call(url: str, op: Callable[[], Awaitable[T]]) -> T:
    """Run one Redis operation; an outage or a refused password becomes ``StoreUnavailable``."""
    try:
        return await op()
    except AuthenticationError as exc:
        if any(sign in str(exc) for sign in ("NOAUTH", "required", "already authenticated")):
            raise StoreUnavailable(
                f"the shared store {redact(url)} needs a password: put it in the URL or DEEPR_STORE_PASSWORD"
            ) from None
        raise StoreUnavailable(f"the shared store {redact(url)} refused the password: {exc}") from None
    except (ConnectionError, TimeoutError, OSError) as exc:
        raise StoreUnavailable(
            f"the shared store {redact(url)} is unreachable ({exc}); nothing was written, retry once it is back"
        ) from None
    except ResponseError as exc:
        if "NOAUTH" in str(exc) or "WRONGPASS" in str(exc):
            raise StoreUnavailable(f"the shared store {redact(url)} needs a password: {exc}") from None
        if str(exc).split(" ", 1)[0] in REFUSALS:
            raise StoreUnavailable(
                f"the shared store {redact(url)} refused the command ({exc}); retry once it accepts writes again"
            ) from None
        raise
    except RedisError as exc:
        raise StoreUnavailable(f"the shared store {redact(url)} failed: {exc}") from None


async def open_checked(url: str, password: str | None, prefix: str) -> aioredis.Redis:
    """Connect, ping, and claim (or check) the key layout version; refuse another version's data."""
    client = connect(url, password)
    try:
        await call(url, client.ping)
        found = await call(url, lambda: client.set(f"{prefix}schema", SCHEMA_VERSION, nx=True, get=True))
    except BaseException:
        await client.aclose()
        raise
    if found not in (None, SCHEMA_VERSION):
        await client.aclose()
        raise DeeprError(
            f"the shared store {redact(url)} holds deepr-mcp data of layout {found!r}, this version uses "
            f"{SCHEMA_VERSION!r}: run the matching deepr-mcp version, or point store.url at an empty database"
        )
    return client
