"""deepr-mcp install: each client's format, merging without loss, backups, dry runs, bad files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from deepr_mcp.cli.install import CLIENTS, install
from deepr_mcp.errors import InvalidInput

KEYS = {"claude-desktop": "mcpServers", "claude-code": "mcpServers", "cursor": "mcpServers", "vscode": "servers"}


@pytest.mark.parametrize("client", CLIENTS)
def test_stdio_entry_merges_and_backs_up(client: str, tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    key = KEYS[client]
    path.write_text(json.dumps({"other": 1, key: {"keep-me": {"command": "x"}}}))
    result = install(client, config_path=path)
    assert result.action == "updated" and result.backup is not None
    assert json.loads(result.backup.read_text())[key] == {"keep-me": {"command": "x"}}
    written = json.loads(path.read_text())
    assert written["other"] == 1 and written[key]["keep-me"] == {"command": "x"}
    entry = written[key]["deepr-mcp"]
    assert entry["args"][-3:] == ["-m", "deepr_mcp", "serve"] and entry["command"] == sys.executable
    again = install(client, config_path=path)
    assert again.action == "unchanged" and again.backup is None


@pytest.mark.parametrize("client", CLIENTS)
def test_http_entry_with_token(client: str, tmp_path: Path) -> None:
    path = tmp_path / "new" / "config.json"
    result = install(client, http_url="http://127.0.0.1:8765/mcp", token="tok-secret", config_path=path)
    assert result.action == "created" and result.backup is None
    text = path.read_text()
    assert "tok-secret" in text and "http://127.0.0.1:8765/mcp" in text
    entry = json.loads(text)[KEYS[client]]["deepr-mcp"]
    if client == "claude-desktop":
        assert entry["command"] == "npx" and "mcp-remote" in entry["args"]
    else:
        assert entry["headers"] == {"Authorization": "Bearer tok-secret"}
    if client == "claude-code":
        assert entry["type"] == "http" and result.hint.startswith("claude mcp add --transport http")


def test_dry_run_writes_nothing_and_masks_the_token(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    result = install("cursor", http_url="https://example.org/mcp", token="tok-secret", dry_run=True, config_path=path)
    assert result.action == "dry-run" and not path.exists()
    assert "tok-secret" not in result.text and "to***" in result.text


def test_vscode_jsonc_with_comments_and_trailing_commas(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(
        '{\n  // my servers\n  "servers": {\n    "a": {"type": "stdio", "command": "a", /* x */},\n  },\n}\n'
    )
    install("vscode", config_path=path)
    written = json.loads(path.read_text())
    assert set(written["servers"]) == {"a", "deepr-mcp"}


def test_bad_files_are_left_untouched(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(InvalidInput, match=r"not valid JSON.*left untouched"):
        install("cursor", config_path=broken)
    assert broken.read_text() == "{not json"
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"mcpServers": []}')
    with pytest.raises(InvalidInput, match="expected an object"):
        install("claude-desktop", config_path=wrong)
    assert wrong.read_text() == '{"mcpServers": []}'
    with pytest.raises(InvalidInput, match="unknown client 'zed'"):
        install("zed", config_path=tmp_path / "z.json")
    with pytest.raises(InvalidInput, match="only applies with --http"):
        install("cursor", token="t", config_path=tmp_path / "z.json")
    directory = tmp_path / "dir.json"
    directory.mkdir()
    with pytest.raises(InvalidInput, match="cannot read"):
        install("cursor", config_path=directory)


def test_cli(tmp_path: Path) -> None:
    path = tmp_path / "claude.json"
    out = subprocess.run(
        [sys.executable, "-m", "deepr_mcp", "install", "claude-code", "--config-path", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"created {path}" in out and "claude mcp add deepr-mcp" in out
    bad = subprocess.run([sys.executable, "-m", "deepr_mcp", "install", "emacs"], capture_output=True, text=True)
    assert bad.returncode == 2 and "supported: claude-desktop" in bad.stderr


def test_the_installed_server_keeps_the_data_dir_config_and_provider(tmp_path: Path) -> None:
    path, data, config = tmp_path / "claude.json", tmp_path / "research-data", tmp_path / "deepr.toml"
    config.write_text("")
    flags = ["--data-dir", str(data), "--config", str(config)]
    install_args = ["claude-desktop", "--provider", "openai", "--config-path", str(path)]
    proc = subprocess.run(
        [sys.executable, "-m", "deepr_mcp", *flags, "install", *install_args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DEEPR_OPENAI_MODEL": "gpt-4o-mini"},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    entry = json.loads(path.read_text())["mcpServers"]["deepr-mcp"]
    assert entry["args"] == ["-m", "deepr_mcp", "--data-dir", str(data), "--config", str(config), "serve"]
    assert entry["env"] == {"DEEPR_OPENAI_MODEL": "gpt-4o-mini", "DEEPR_PROVIDER": "openai"}
    assert "DEEPR_OPENAI_API_KEY is not written" in proc.stdout
    with pytest.raises(InvalidInput, match="belong to the server you start"):
        install("cursor", http_url="http://127.0.0.1:8765/mcp", data_dir=data, config_path=tmp_path / "c.json")
