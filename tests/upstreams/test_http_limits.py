"""An HTTP upstream's answer is read with a byte limit while it streams, decompressed size counted
(issue 31 item 9): deepr-mcp runs as its own process, its upstream (tests/upstreams/hostile_http.py)
as another, both on 127.0.0.1, and the server's peak RSS is read from /proc.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from mcp import Client

from tests.clients import structured, text_of
from tests.servers import launch, stop_popen

MIB = 1024 * 1024
LIMIT = 1 * MIB  # max_result_bytes: answers are read up to 2 x this + 1 MiB


@contextmanager
def hostile_upstream() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.upstreams.hostile_http"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # "port N" once listening (or EOF if it died)
        assert line.startswith("port "), line
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        stop_popen(proc)


def memory_kib(pid: int, field: str) -> int:
    """``VmRSS`` (now) or ``VmHWM`` (peak) of a process, in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads RSS from /proc")
async def test_a_huge_body_and_a_gzip_bomb_are_cut_while_streaming(tmp_path: Path) -> None:
    with hostile_upstream() as url:
        config = tmp_path / "config.toml"
        config.write_text(f'[[upstreams]]\nname = "web"\nurl = "{url}"\nmax_result_bytes = {LIMIT}\ntimeout_s = 120\n')
        data = tmp_path / "data"
        data.mkdir()
        server = launch(data, DEEPR_CONFIG=str(config))
        proc, server_url = server.proc, server.url
        try:
            async with Client(server_url, mode="legacy") as client:
                warm = await client.call_tool("tool_call", {"name": "web_echo", "arguments": {"text": "warm"}})
                assert not warm.is_error and text_of(warm) == "warm"
                before = memory_kib(proc.pid, "VmRSS")
                for tool in ("web_big", "web_bomb"):
                    result = await client.call_tool("tool_call", {"name": tool, "arguments": {"megabytes": 200}})
                    message = text_of(result)
                    assert result.is_error and "upstream 'web'" in message, message
                    assert f"passed {2 * LIMIT + MIB:,} bytes (decompressed); deepr stopped reading it" in message
                peak_growth_mib = (memory_kib(proc.pid, "VmHWM") - before) / 1024
                print(f"server peak RSS growth over a 200 MB body and a 200 MB gzip bomb: {peak_growth_mib:.1f} MiB")
                assert peak_growth_mib < 256, peak_growth_mib  # unbounded: +1,271 MiB; bounded: 9-80 MiB by load

                again = await client.call_tool("tool_call", {"name": "web_echo", "arguments": {"text": "still"}})
                assert not again.is_error and text_of(again) == "still"  # the upstream's session goes on
                assert structured(await client.call_tool("server_info", {}))
        finally:
            stop_popen(proc)
