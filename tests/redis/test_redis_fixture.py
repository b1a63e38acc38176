"""The test engine: without redis-server a dev run skips saying why (CI=true fails); never a shared port."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.redis.engine import redis_or_skip


def test_missing_redis_skips_in_dev_and_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="redis-server is not installed"):
        redis_or_skip()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true but redis-server is not installed"):
        redis_or_skip()


def test_a_test_engine_never_answers_on_another_engines_port(tmp_path: Path) -> None:
    """Two test runs on one machine may pick the same free port: the second engine is refused
    (it cannot bind, or the port answers with another process) and running_redis picks again."""
    from tests.redis.engine import PortTaken, RedisServer, running_redis

    with running_redis(tmp_path) as first:
        (tmp_path / "second").mkdir()
        second = RedisServer(port=first.port, workdir=tmp_path / "second")
        with pytest.raises(PortTaken):
            second.start()
        assert second.proc is None or second.proc.poll() is not None
