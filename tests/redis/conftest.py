"""The Redis-backed tests share one real ``redis-server`` per test (see ``tests.redis.engine.running_redis``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.redis.engine import RedisServer, running_redis


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    workdir = tmp_path / "redis"
    workdir.mkdir()
    with running_redis(workdir) as server:
        yield server
