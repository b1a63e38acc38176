"""Settings precedence and the CLI commands that need no client."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deepr_mcp.cli import main
from deepr_mcp.config import Settings, load_settings
from deepr_mcp.errors import InvalidInput
from deepr_mcp.hosts import is_loopback_host
from deepr_mcp.transports.event_loop import use_uvloop


def test_precedence_defaults_toml_env_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEEPR_GATEWAY_MODE", raising=False)
    monkeypatch.delenv("DEEPR_PROVIDER", raising=False)
    assert load_settings().gateway.mode == "proxy"
    toml = tmp_path / "c.toml"
    toml.write_text('provider = "openai"\n[gateway]\nmode = "search"\n[budget]\ntimeout_s = 7\n')
    settings = load_settings(toml)
    assert (settings.gateway.mode, settings.provider, settings.budget.timeout_s) == ("search", "openai", 7)
    monkeypatch.setenv("DEEPR_GATEWAY_MODE", "full")
    assert load_settings(toml).gateway.mode == "full"
    assert load_settings(toml, data_dir=tmp_path / "cli").data_dir == tmp_path / "cli"


def test_bad_config_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InvalidInput, match="does not exist"):
        load_settings(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[gateway\n")
    with pytest.raises(InvalidInput, match="not valid TOML"):
        load_settings(broken)
    monkeypatch.setenv("DEEPR_GATEWAY_MODE", "everything")
    with pytest.raises(InvalidInput, match=r"gateway\.mode"):
        load_settings()


def test_event_loop_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    installed = importlib.util.find_spec("uvloop") is not None
    assert use_uvloop("auto") is installed and use_uvloop("asyncio") is False
    monkeypatch.setenv("DEEPR_EVENT_LOOP", "trio")
    with pytest.raises(InvalidInput, match="event_loop"):
        load_settings()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None)  # as on a machine without uvloop
    assert use_uvloop("auto") is False
    with pytest.raises(InvalidInput, match="uvloop is not installed; use 'auto' or 'asyncio'"):
        use_uvloop("uvloop")


def test_loopback_detection() -> None:
    assert all(is_loopback_host(h) for h in ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"])
    assert not any(is_loopback_host(h) for h in ["0.0.0.0", "10.0.0.1", "example.com", "::"])


def test_tools_search_prints_ranked_hits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--data-dir", str(tmp_path), "tools", "search", "what version is the server"]) == 0
    first = capsys.readouterr().out.splitlines()[0].split()
    assert first[0] == "server_info" and float(first[1]) > 0
    assert any((tmp_path / "tool-vectors").glob("*.npz")), "the catalogue's vectors are cached as the server's are"


def test_tools_search_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    at = ["--data-dir", str(tmp_path)]
    assert main([*at, "tools", "search", "   "]) == 2
    assert "query is empty" in capsys.readouterr().err
    assert main([*at, "tools", "search", "x", "--limit", "99"]) == 2
    assert main([*at, "tools", "search", "zebra giraffe", "--mode", "lexical"]) == 1  # no word in common
    assert "no tool matches" in capsys.readouterr().out


def test_config_show_hides_secrets(data_dir: Path) -> None:
    env = {"DEEPR_CONFIG": "", "DEEPR_OPENAI_API_KEY": "sk-very-secret", "DEEPR_DATA_DIR": str(data_dir)}
    out = subprocess.run(
        [sys.executable, "-m", "deepr_mcp", "config", "show"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": os.environ.get("PYTHONPATH", ""), **env},
        check=True,
    ).stdout
    assert "sk-very-secret" not in out
    shown = json.loads(out)
    assert shown["openai"]["api_key"] == "**********"
    assert shown["data_dir"] == str(data_dir)


def test_config_show_prints_every_section_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One settings model: every section a config file can set (auth, upstreams, research sources,
    store, objects, corpus...) comes back from ``config show``, its secrets hidden."""
    for key in [k for k in os.environ if k.startswith("DEEPR_")]:
        monkeypatch.delenv(key)
    toml = tmp_path / "c.toml"
    toml.write_text(
        f'[corpus]\nroots = ["{tmp_path}"]\n'
        "[objects]\nttl_s = 60\n"
        '[store]\nurl = "redis://user:hunter2-secret@127.0.0.1:6390/2"\n'
        '[auth.oauth]\nissuer = "https://issuer.example"\njwks_url = "https://issuer.example/jwks"\n'
        'resource_url = "https://deepr.example/mcp"\n'
        '[[auth.principals]]\nname = "finance"\ntoken = "finance-token-0123456789abcdef"\nscopes = ["read"]\n'
        '[[upstreams]]\nname = "docs"\nurl = "http://127.0.0.1:9/mcp"\nheaders = {Authorization = "Bearer up-secret"}\n'
        '[[research.sources]]\nupstream = "docs"\ntool = "search"\n'
    )
    assert main(["--config", str(toml), "--data-dir", str(tmp_path / "data"), "config", "show"]) == 0
    out = capsys.readouterr().out
    assert "hunter2-secret" not in out and "up-secret" not in out and "finance-token" not in out
    shown = json.loads(out)
    assert set(shown) == set(Settings.model_fields)
    assert shown["corpus"]["roots"] == [str(tmp_path)] and shown["objects"]["ttl_s"] == 60
    assert shown["store"]["url"] == "redis://user:***@127.0.0.1:6390/2"
    assert shown["auth"]["oauth"]["audience"] == "https://deepr.example/mcp"
    assert shown["auth"]["principals"][0]["token"] == "**********"
    assert shown["upstreams"][0]["name"] == "docs" and shown["upstreams"][0]["headers"]["Authorization"] == "**********"
    assert shown["research"]["sources"][0] == {
        "upstream": "docs",
        "tool": "search",
        "query_arg": "query",
        "arguments": {},
        "limit": 5,
        "cost_per_call": 0.0,
    }
