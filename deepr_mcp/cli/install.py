"""Write deepr-mcp into an MCP client's configuration: merged, backed up, atomic.

Locations and formats as each client documents them:
- Claude Desktop: ``claude_desktop_config.json`` (macOS ``~/Library/Application Support/Claude``,
  Windows ``%APPDATA%\\Claude``, Linux ``~/.config/Claude``), key ``mcpServers``, stdio only;
  a remote server is reached through ``npx mcp-remote URL --header ...``.
- Claude Code: user scope ``~/.claude.json`` (project scope ``.mcp.json`` via ``--config-path``),
  key ``mcpServers``, ``{"type": "stdio", ...}`` or ``{"type": "http", "url", "headers"}``.
- Cursor: ``~/.cursor/mcp.json``, key ``mcpServers``, ``{command, args, env}`` or ``{url, headers}``.
- VS Code: user ``mcp.json`` (``~/.config/Code/User``, macOS ``~/Library/Application Support/Code/User``,
  Windows ``%APPDATA%\\Code\\User``) or ``.vscode/mcp.json``, key ``servers``; the file may have comments.
An existing file that cannot be read or parsed is left untouched and named in the error.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from deepr_mcp.errors import InvalidInput

CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode")


@dataclass(frozen=True, slots=True)
class InstallResult:
    client: str
    path: Path
    action: str  # created | updated | unchanged | dry-run
    backup: Path | None
    entry: dict[str, Any]
    text: str
    hint: str | None = None


def default_path(client: str) -> Path:
    home = Path.home()
    appdata = Path(os.environ.get("APPDATA", home / "AppData" / "Roaming"))
    if client == "claude-desktop":
        if sys.platform == "darwin":
            return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
        if sys.platform == "win32":
            return appdata / "Claude" / "claude_desktop_config.json"
        return home / ".config" / "Claude" / "claude_desktop_config.json"
    if client == "claude-code":
        return home / ".claude.json"
    if client == "cursor":
        return home / ".cursor" / "mcp.json"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Code" / "User" / "mcp.json"
    if sys.platform == "win32":
        return appdata / "Code" / "User" / "mcp.json"
    return home / ".config" / "Code" / "User" / "mcp.json"


def strip_jsonc(text: str) -> str:
    """Remove // and /* */ comments (outside strings) and trailing commas, for VS Code's JSONC."""
    out, i, in_string = [], 0, False
    while i < len(text):
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif text.startswith("//", i):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end == -1 else end + 2
            continue
        else:
            out.append(ch)
        i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


PROVIDER_ENV = (
    "DEEPR_PROVIDER",
    "DEEPR_OPENAI_BASE_URL",
    "DEEPR_OPENAI_MODEL",
    "DEEPR_OPENAI_CHEAP_MODEL",
    "DEEPR_ANTHROPIC_MODEL",
    "DEEPR_ANTHROPIC_CHEAP_MODEL",
    "DEEPR_RESEARCH_RERANKER",
)
"""Settings that choose the provider and model, carried into a stdio entry when set here (keys are not)."""


def server_command(data_dir: Path | None = None, config: Path | None = None) -> list[str]:
    """How the client starts the server: this Python, with the data dir and config the user gave."""
    command = [sys.executable, "-m", "deepr_mcp"]
    if data_dir is not None:
        command += ["--data-dir", str(data_dir.expanduser().resolve())]
    if config is not None:
        command += ["--config", str(config.expanduser().resolve())]
    return [*command, "serve"]


def entry_for(
    client: str, http_url: str | None, token: str | None, command: list[str], env: dict[str, str] | None = None
) -> dict[str, Any]:
    if http_url is None:
        stdio: dict[str, Any] = {"command": command[0], "args": command[1:]}
        if env:
            stdio["env"] = dict(sorted(env.items()))
        return {"type": "stdio", **stdio} if client in ("claude-code", "vscode") else stdio
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if client == "claude-desktop":  # stdio only: bridge with mcp-remote
        args = ["-y", "mcp-remote", http_url]
        if token:
            args += ["--header", "Authorization:${DEEPR_AUTH_HEADER}"]
        entry: dict[str, Any] = {"command": "npx", "args": args}
        if token:
            entry["env"] = {"DEEPR_AUTH_HEADER": f"Bearer {token}"}
        return entry
    if client == "cursor":
        return {"url": http_url, **({"headers": headers} if headers else {})}
    return {"type": "http", "url": http_url, **({"headers": headers} if headers else {})}


def mask(text: str, token: str | None) -> str:
    return text.replace(token, token[:2] + "***") if token else text


def read_config(path: Path, key: str, *, jsonc: bool) -> tuple[str | None, dict[str, Any]]:
    """The client's config file as text (``None`` if absent) and as JSON; refused if it is not ours to merge."""
    if not path.exists():
        return None, {}
    try:
        old_text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}; it was left untouched") from None
    data: Any = {}
    if old_text.strip():
        try:
            data = json.loads(strip_jsonc(old_text) if jsonc else old_text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); left untouched") from None
    if not isinstance(data, dict) or not isinstance(data.get(key, {}), dict):
        raise InvalidInput(f"{path}: expected an object with an object '{key}'; left untouched")
    return old_text, data


def install(
    client: str,
    *,
    http_url: str | None = None,
    token: str | None = None,
    dry_run: bool = False,
    config_path: Path | None = None,
    server_name: str = "deepr-mcp",
    command: list[str] | None = None,
    data_dir: Path | None = None,
    config: Path | None = None,
    env: dict[str, str] | None = None,
) -> InstallResult:
    """Write (or, with ``dry_run``, show) the client's entry for deepr-mcp.

    A stdio entry starts the server with the ``data_dir`` and ``config`` given here and the
    provider settings in ``env``, so the client's server researches what the user set up.
    """
    if client not in CLIENTS:
        raise InvalidInput(f"unknown client {client!r}; supported: {', '.join(CLIENTS)}")
    if http_url is not None and not re.match(r"^https?://", http_url):
        raise InvalidInput(f"--http must be an http(s) URL such as http://127.0.0.1:8765/mcp, got {http_url!r}")
    if token and http_url is None:
        raise InvalidInput("--token only applies with --http URL")
    if http_url is not None and (data_dir or config or env):
        raise InvalidInput(
            "--data-dir, --config and provider settings belong to the server you start; an --http install only "
            "points the client at it"
        )
    path = (config_path or default_path(client)).expanduser()
    key = "servers" if client == "vscode" else "mcpServers"
    command = command or server_command(data_dir, config)
    entry = entry_for(client, http_url, token, command, env)

    old_text, data = read_config(path, key, jsonc=client == "vscode")
    servers = dict(data.get(key, {}))
    servers[server_name] = entry
    merged = {**data, key: servers}
    text = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
    hint = None
    if client == "claude-code":
        hint = (
            f"claude mcp add --transport http {server_name} {http_url}"
            + (" --header 'Authorization: Bearer <token>'" if token else "")
            if http_url
            else f"claude mcp add {server_name} -- {' '.join(command)}"
        )
    if dry_run:
        return InstallResult(client, path, "dry-run", None, entry, mask(text, token), hint)
    if old_text is not None and old_text == text:
        return InstallResult(client, path, "unchanged", None, entry, text, hint)
    backup = None
    path.parent.mkdir(parents=True, exist_ok=True)
    if old_text is not None:
        backup = path.with_name(f"{path.name}.bak-{datetime.now():%Y%m%d%H%M%S%f}")
        backup.write_text(old_text, encoding="utf-8")
    tmp = path.with_name(f".{path.name}.deepr-tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return InstallResult(client, path, "updated" if old_text is not None else "created", backup, entry, text, hint)
