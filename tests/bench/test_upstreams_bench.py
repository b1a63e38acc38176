"""bench/upstreams.py runs end to end at a small size and prints every row of its table."""

from __future__ import annotations

import pytest

from bench.upstreams import run


async def test_the_federation_bench_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    await run(30, 5)
    out = capsys.readouterr().out
    for row in (
        "first tools/list, proxy mode",
        "first tools/list vs full catalogue",
        "tool_search through the protocol",
    ):
        assert row in out
    assert "added by deepr, p50 ms" in out and "one upstream of 30 tools" in out
