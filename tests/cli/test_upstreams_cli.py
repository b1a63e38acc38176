"""``deepr-mcp upstreams list|check`` as a person runs them, against a real upstream process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.servers import server_env
from tests.upstreams.upstream_servers import fixture_upstream


def write_config(path: Path) -> Path:
    good = fixture_upstream("fx", prefix="")
    lines = ["[[upstreams]]", f'name = "{good["name"]}"', f"command = {json.dumps(good['command'])}"]
    lines += [
        f"args = {json.dumps(good['args'])}",
        f"cwd = {json.dumps(good['cwd'])}",
        'prefix = ""',
        'deny = ["crash"]',
    ]
    lines += ["[[upstreams]]", 'name = "gone"', f"command = {json.dumps(str(path.parent / 'no-such-server'))}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    config = write_config(tmp_path / "config.toml")
    cmd = [sys.executable, "-m", "deepr_mcp", "--config", str(config), "upstreams", *args]
    return subprocess.run(cmd, env=server_env(tmp_path / "data"), capture_output=True, text=True, timeout=120)


def test_list_reads_the_config_only(tmp_path: Path) -> None:
    done = run(tmp_path, "list", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [(r["name"], r["transport"], r["prefix"]) for r in rows] == [("fx", "stdio", ""), ("gone", "stdio", "gone_")]


def test_check_connects_reports_what_is_published_and_fails_on_a_dead_upstream(tmp_path: Path) -> None:
    done = run(tmp_path, "check")
    assert done.returncode == 1
    assert "fx: ok, fixture-upstream 1.0, 10 tools published" in done.stdout
    assert "left out corpus_search: 'corpus_search' is already a local tool's name" in done.stdout
    assert "left out crash: left out by allow/deny" in done.stdout
    assert "left out tool_search: 'tool_search' is the gateway's own tool" in done.stdout
    assert "gone: FAILED: upstream 'gone' (stdio " in done.stdout and "command not found" in done.stdout
    assert "Traceback" not in done.stderr

    only = run(tmp_path, "check", "nobody")
    assert only.returncode == 2 and "no upstream named 'nobody'; configured: fx, gone" in only.stderr
