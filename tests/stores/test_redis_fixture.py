"""Without redis-server a dev run skips the Redis tests saying why; under CI=true they fail instead."""

from __future__ import annotations

import pytest

from tests.support import redis_or_skip


def test_missing_redis_skips_in_dev_and_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="redis-server is not installed"):
        redis_or_skip()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true but redis-server is not installed"):
        redis_or_skip()
