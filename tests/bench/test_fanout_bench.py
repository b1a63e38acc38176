"""The fan-out bench itself: every mode delivers the final update to every subscriber, and no wait hangs."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from bench.fanout import _line, run_case


@pytest.mark.parametrize("mode", ["deepr", "previous", "naive"])
def test_a_small_run_of_each_mode_reaches_every_subscriber(mode: str) -> None:
    result = run_case(5, mode, updates=2, interval=0.1)
    assert result["final"] == "5/5"
    assert result["notifications"] >= 5  # the last update at least (a burst may coalesce)
    assert not math.isnan(result["p99"]) and not math.isnan(result["written_ms"])


def test_a_stalled_subscriber_run_blocks_its_sends_and_still_serves_the_rest() -> None:
    result = run_case(5, "deepr", 1, updates=2, interval=0.1)
    assert result["clogged"]
    assert result["final"] == "4/4"  # the stalled one is not measured


def test_waiting_for_a_silent_process_is_bounded() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], stdout=subprocess.PIPE, text=True)
    try:
        with pytest.raises(TimeoutError, match="a server to start"):
            _line(proc, 0.2, "a server to start")
    finally:
        proc.kill()
        proc.wait()
    quiet = subprocess.Popen([sys.executable, "-c", "pass"], stdout=subprocess.PIPE, text=True)
    with pytest.raises(RuntimeError, match="exited"):
        _line(quiet, 30, "a line")
