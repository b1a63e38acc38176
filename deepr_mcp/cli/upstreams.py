"""``deepr-mcp upstreams list|check``: the configured upstream MCP servers, and whether they answer.

``list`` reads the configuration only (no process started, no request sent). ``check`` connects
to each (or the named) upstream, lists its tools, prints what would be published and what is
left out and why, and exits 1 if any upstream failed.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepr_mcp.cli.args import settings_for
from deepr_mcp.errors import NotFound

if TYPE_CHECKING:
    from deepr_mcp.upstreams.settings import UpstreamSettings

__all__ = ["add_upstreams_parser", "cmd_upstreams"]


def add_upstreams_parser(sub: Any) -> None:
    upstreams = sub.add_parser("upstreams", help="the upstream MCP servers whose tools join the catalogue")
    upstreams_sub = upstreams.add_subparsers(dest="upstreams_command", required=True)
    listing = upstreams_sub.add_parser("list", help="print the configured upstreams (connects to none)")
    listing.add_argument("--json", action="store_true", help="as JSON")
    check = upstreams_sub.add_parser("check", help="connect, list tools, and report what would be published")
    check.add_argument("name", nargs="?", help="only this upstream")
    check.add_argument("--json", action="store_true", help="as JSON")


def describe(upstream: UpstreamSettings) -> dict[str, Any]:
    return {
        "name": upstream.name,
        "transport": upstream.kind + ("+sse" if upstream.sse_fallback else ""),
        "endpoint": upstream.where(),
        "prefix": upstream.tool_prefix,
        "allow": upstream.allow,
        "deny": upstream.deny,
        "timeout_s": upstream.timeout_s,
        "max_concurrency": upstream.max_concurrency,
    }


def config_file(args: argparse.Namespace) -> Path:
    import os

    from deepr_mcp.config import CONFIG_ENV, default_config_file

    return args.config or Path(os.environ.get(CONFIG_ENV) or default_config_file())


def cmd_upstreams(args: argparse.Namespace) -> int:
    settings = settings_for(args)
    if args.upstreams_command == "list":
        rows = [describe(u) for u in settings.upstreams]
        if args.json:
            print(json.dumps(rows, indent=2))
        elif not rows:
            print(f"no upstreams configured yet: add [[upstreams]] entries to {config_file(args)} (see README)")
        for row in [] if args.json else rows:
            print(f"{row['name']:<16} {row['transport']:<6} {row['prefix']:<16} {row['endpoint']}")
        return 0
    if not settings.upstreams:
        print(f"no upstreams configured yet: add [[upstreams]] entries to {config_file(args)} (see README)")
        return 0
    chosen = [u for u in settings.upstreams if args.name in (None, u.name)]
    if args.name is not None and not chosen:
        known = ", ".join(u.name for u in settings.upstreams) or "none configured"
        raise NotFound(f"no upstream named {args.name!r}; configured: {known}")
    import anyio

    reports = anyio.run(_check, chosen)
    if args.json:
        print(json.dumps(reports, indent=2))
    for report in [] if args.json else reports:
        if report["ok"]:
            print(f"{report['name']}: ok, {report['server']}, {report['tools']} tools published")
            for name, why in sorted(report["skipped"].items()):
                print(f"  left out {name}: {why}")
            if report.get("over_cap"):
                over = report["over_cap"]
                print(f"  left out {over['count']} more tools ({', '.join(over['first'])}, ...): {over['why']}")
        else:
            print(f"{report['name']}: FAILED: {report['error']}")
    return 0 if all(r["ok"] for r in reports) else 1


async def _check(chosen: list[UpstreamSettings]) -> list[dict[str, Any]]:
    """Each upstream against the local catalogue (for name collisions), in a throwaway state dir."""
    from deepr_mcp.gateway.registry import ToolRegistry
    from deepr_mcp.tools import all_tools
    from deepr_mcp.upstreams.pool import Upstreams

    with tempfile.TemporaryDirectory(prefix="deepr-upstreams-check-") as scratch:
        async with Upstreams(chosen, ToolRegistry(all_tools()), Path(scratch)) as upstreams:
            return [await upstreams.check(u.name) for u in chosen]
