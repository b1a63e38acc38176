"""What every command shares: reading HOST:PORT and building the settings from the flags."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deepr_mcp.config import Settings


def host_port(value: str) -> tuple[str, int]:
    if "://" in value or "/" in value:
        raise argparse.ArgumentTypeError(
            f"expected HOST:PORT such as 127.0.0.1:8765, got {value!r}: --http takes the address to listen on, "
            "not a URL (no scheme, no path; clients then connect to http://HOST:PORT/mcp)"
        )
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT such as 127.0.0.1:8765, got {value!r}")
    return host, int(port)


def settings_for(args: argparse.Namespace) -> Settings:
    from deepr_mcp.config import load_settings  # pydantic and the SDK: only once a command runs

    overrides: dict[str, object] = {"data_dir": args.data_dir}
    if getattr(args, "auth_token", None):
        overrides["auth_token"] = args.auth_token
    if getattr(args, "store", None):
        overrides["store"] = {"url": args.store}
    settings = load_settings(args.config, **overrides)
    if getattr(args, "mode", None):
        settings.gateway.mode = args.mode
    if getattr(args, "http", None):
        settings.http.host, settings.http.port = args.http
    return settings
