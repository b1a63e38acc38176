"""A real ``redis-server`` for the Redis-backed tests, on a free loopback port, never a system service."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


class PortTaken(Exception):
    """The free port picked for a test engine was taken before it could bind: pick another."""


@dataclass
class RedisServer:
    """A real ``redis-server`` on a free loopback port, in a temp dir, never a system service.

    ``stop``/``start`` restart it on the same port (an engine restart mid-test); no persistence
    (``--save '' --appendonly no``), so a restart comes back empty, like a fresh replica of state.
    """

    port: int
    workdir: Path
    proc: subprocess.Popen | None = None
    args: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start it and wait until *this* process answers on the port.

        Raises :class:`PortTaken` when it exits at once (another process took the port between
        the probe and the bind) or when the port is answered by another process (a second test
        run on the machine): a test must never talk to someone else's engine.
        """

        import redis

        cmd = [shutil.which("redis-server") or "redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        cmd += ["--save", "", "--appendonly", "no", "--dir", str(self.workdir), "--protected-mode", "yes", *self.args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.workdir)
        deadline = time.monotonic() + 10
        password = next((a for k, a in zip(self.args, self.args[1:], strict=False) if k == "--requirepass"), None)
        while True:
            if self.proc.poll() is not None:
                raise PortTaken(f"redis-server exited with {self.proc.returncode} (port {self.port} taken?)")
            try:
                with redis.Redis(port=self.port, password=password, socket_timeout=0.5) as probe:
                    pid = int(probe.info("server")["process_id"])
            except (redis.RedisError, OSError):
                assert time.monotonic() < deadline, "redis-server did not listen within 10 s"
                time.sleep(0.02)
                continue
            if pid != self.proc.pid:
                self.stop()
                raise PortTaken(f"port {self.port} is answered by another redis-server (pid {pid})")
            return

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def redis_or_skip() -> str:
    """The redis-server binary; skipped with the reason in a dev run, a failure under CI=true."""

    import pytest

    binary = shutil.which("redis-server")
    if binary is None:
        reason = "redis-server is not installed (apt-get install redis-server; .ci/run installs it)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI=true but {reason}")
        pytest.skip(reason)
    return binary


@contextmanager
def running_redis(workdir: Path, *args: str) -> Iterator[RedisServer]:
    """Start ``redis-server`` on a free port under ``workdir`` (``args`` added to its command line)."""

    redis_or_skip()
    for attempt in range(5):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = RedisServer(port=port, workdir=workdir, args=args)
        try:
            server.start()
            break
        except PortTaken:
            if attempt == 4:
                raise
    try:
        yield server
    finally:
        server.stop()
