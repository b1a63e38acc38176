"""Every tool, called with arguments built to hurt, over real HTTP: each call gets a plain answer or a clear
refusal, never an internal error or a traceback, and the process keeps serving and restarts cleanly.

The arguments come from each tool's own input schema (so a new tool is covered the day it is added):
nothing, an unknown field, and for every property values of every wrong type, out-of-range numbers,
huge and hostile strings (NUL, traversal, right-to-left override, 200,000 characters). Two of these once
reached the server as "internal error": an offset too large for SQLite in ``campaign_list`` and a NUL
in ``corpus_remove``'s path. Resource URIs and prompt arguments get the same treatment.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.shared.exceptions import MCPError

from deepr_mcp.jobs.models import CampaignPhase
from tests.clients import call
from tests.servers import config_env, launch

HUGE = "x" * 200_000
STRINGS = ["", "../../../../etc/passwd", "\x00nul", HUGE, "deepr://campaigns/../x", "\u202eevil", "%s%n{0}"]
URLS = ["file:///etc/passwd", "http://127.0.0.1:1/", "javascript:alert(1)", ""]
"""web_fetch gets only these as strings: a test never reaches an address outside loopback."""
NEVER = ("internal error", "Traceback", 'File "')


def kind_of(schema: dict[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind
    return next((a["type"] for a in schema.get("anyOf", []) if a.get("type") not in (None, "null")), None)


def wrong_values(kind: str | None) -> list[Any]:
    """Values a property of this kind should refuse (or survive): other types, extremes, and hostile text."""
    values: list[Any] = [None, True, {"deep": [[[[[[]]]]]]}]
    values += [["a", 1, None]] if kind != "array" else [[{"x": 1}] * 1000]
    values += ["a string", HUGE] if kind != "string" else STRINGS
    values += [-1, 0, 10**30, -(10**30), 1e308] if kind in ("integer", "number") else [7]
    return values


def hostile_calls(tool: Any, campaign_id: str) -> list[dict[str, Any]]:
    properties = tool.input_schema.get("properties", {})
    required = tool.input_schema.get("required", [])
    usable = {"campaign_id": campaign_id, "question": "What does the kiln do?", "query": "kiln"}
    base = {name: usable.get(name, "x") for name in required}
    calls: list[dict[str, Any]] = [{}, {**base, "unknown_field": 1}]
    for name, schema in properties.items():
        values = wrong_values(kind_of(schema))
        if tool.name == "web_fetch" and name == "url":
            values = [v for v in values if not isinstance(v, str)] + URLS
        calls += [{**base, name: value} for value in values]
    return calls


async def answer_text(client: Client, name: str, arguments: dict[str, Any]) -> str:
    try:
        with anyio.fail_after(60):  # a hang guard only
            result = await client.call_tool(name, arguments)
    except MCPError as error:  # a JSON-RPC refusal is a fine answer too
        return f"jsonrpc error {error}"
    return " ".join(getattr(part, "text", "") for part in result.content)


async def test_every_tool_refuses_hostile_arguments_clearly_and_the_server_lives(data_dir: Path) -> None:
    env = config_env({"gateway": {"mode": "full"}})
    server = launch(data_dir, **env)
    try:
        async with Client(server.url, mode="legacy") as client:
            tools = (await client.list_tools()).tools
            assert len(tools) >= 40
            cid = (await call(client, "campaign_start", {"question": "What does the kiln do?"}))["campaign_id"]
            sent, bad = 0, []
            for tool in tools:
                for arguments in hostile_calls(tool, cid):
                    text = await answer_text(client, tool.name, arguments)
                    sent += 1
                    if any(word in text for word in NEVER):
                        bad.append((tool.name, repr(arguments)[:100], text[:200]))
                    assert server.proc.poll() is None, f"the server died on {tool.name} {repr(arguments)[:200]}"
            assert sent > 1000 and not bad, bad
            too_far = await answer_text(client, "campaign_list", {"offset": 10**30})
            assert "offset" in too_far and "less than or equal to 1000000" in too_far
            nul = await answer_text(client, "corpus_remove", {"path": "a\x00b"})
            assert "may not contain a NUL character" in nul
    finally:
        os.kill(server.proc.pid, signal.SIGTERM)
        server.proc.wait()

    again = launch(data_dir, **env)  # whatever was stored on the way restarts cleanly
    try:
        async with Client(again.url, mode="auto") as client:
            listed = await call(client, "campaign_list", {})
            assert cid in {c["campaign_id"] for c in listed["campaigns"]}
            status = await call(client, "campaign_status", {"campaign_id": cid})
            assert status["id"] == cid and status["phase"] in {phase.value for phase in CampaignPhase}
    finally:
        os.kill(again.proc.pid, signal.SIGTERM)
        again.proc.wait()


HOSTILE_URIS = [
    "",
    "deepr://",
    "deepr://campaigns/",
    "deepr://campaigns/../../etc/passwd",
    "deepr://campaigns/%00/status",
    "deepr://campaigns/" + HUGE,
    "deepr://campaigns/{cid}/sandbox/../../x",
    "deepr://campaigns/{cid}/status?x=1#f",
    "deepr://campaigns/{cid}/report/../../..",
    "file:///etc/passwd",
    "ui://x",
    "\x00",
    "deepr://objects/obj_" + "0" * 24,
]


async def test_resources_prompts_and_completions_refuse_hostile_names_clearly(data_dir: Path) -> None:
    server = launch(data_dir)
    try:
        async with Client(server.url, mode="legacy") as client:
            cid = (await call(client, "campaign_start", {"question": "What does the kiln do?"}))["campaign_id"]
            answers: list[tuple[str, str]] = []

            async def answer(label: str, request: Any) -> None:
                try:
                    with anyio.fail_after(60):  # a hang guard only
                        answers.append((label, str(await request)))
                except MCPError as error:
                    answers.append((label, f"jsonrpc error {error}"))
                assert server.proc.poll() is None, f"the server died on {label}"

            for uri in (u.replace("{cid}", cid) for u in HOSTILE_URIS):
                await answer(f"read {uri[:60]!r}", client.read_resource(uri))
                await answer(f"subscribe {uri[:60]!r}", client.subscribe_resource(uri))
            for prompt in (await client.list_prompts()).prompts:
                for value in STRINGS:
                    names = {a.name: value for a in prompt.arguments or []}
                    await answer(f"prompt {prompt.name} {value[:20]!r}", client.get_prompt(prompt.name, names))
                await answer(f"prompt {prompt.name} unknown argument", client.get_prompt(prompt.name, {"zzz": "1"}))
            await answer("an unknown prompt", client.get_prompt("nope" + HUGE, {}))
            bad = [(label, text[:200]) for label, text in answers if any(word in text for word in NEVER)]
            assert len(answers) > 40 and not bad, bad
            assert any("expected deepr://campaigns/{id}/{status" in text for _, text in answers)  # says what is allowed
            assert any("prompts: research" in text for _, text in answers)
    finally:
        os.kill(server.proc.pid, signal.SIGTERM)
        server.proc.wait()
