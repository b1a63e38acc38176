"""Tokens a model reads to follow one campaign to completion, three ways, as a table.

Run: ``.venv/bin/python -m bench.follow [--step-delay 8]`` (about a minute). Three followers watch
the same campaign at the same time over one in-process server:

- polling: ``campaign_status`` every 5 s (what a model does without push or a waiting call);
- waiting: ``campaign_wait`` in a loop, passing back ``since`` (the pull twin);
- pushed: ``notifications/resources/updated`` on the status resource, re-reading it on each one.

Tokens are counted with the cl100k_base encoding (``bpe-openai``, which ships the tiktoken
vocabulary and matches its token ids offline) over exactly the text the model would read: tool
results, notifications and resource bodies. The reference design's figures were ~500 tokens per
poll and ~150 per pushed update (70% saved).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import anyio
import bpe_openai
import mcp_types as types
from mcp import Client

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings

QUESTION = "Why did the first transatlantic telegraph cable fail, and how are cable faults repaired today?"
POLL_EVERY_S = 5.0


def text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def run(step_delay: float) -> dict[str, dict[str, float]]:
    enc = bpe_openai.get_encoding("cl100k_base")

    def tokens(s: str) -> int:
        return len(enc.encode(s))

    stats = {k: {"calls": 0, "tokens": 0} for k in ("polling", "waiting", "pushed")}
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), jobs={"step_delay_s": step_delay})
        async with Root(settings) as services:
            server = build_server(services)
            updates: list[types.ResourceUpdatedNotification] = []
            arrived = anyio.Event()

            async def on_message(message: object) -> None:
                nonlocal arrived
                if isinstance(message, types.ResourceUpdatedNotification):
                    updates.append(message)
                    arrived.set()
                    arrived = anyio.Event()

            async with (
                Client(server, mode="legacy") as poller,
                Client(server, mode="legacy") as waiter,
                Client(server, mode="legacy", message_handler=on_message) as pushed,
            ):
                await waiter.call_tool("corpus_add", {"sample": True})  # an empty corpus refuses campaigns
                started = await waiter.call_tool("campaign_start", {"question": QUESTION})
                cid = started.structured_content["campaign_id"]  # type: ignore[index]
                uri = f"deepr://campaigns/{cid}/status"
                await pushed.subscribe_resource(uri)
                done = anyio.Event()

                async def poll() -> None:
                    while True:
                        body = text(await poller.call_tool("campaign_status", {"campaign_id": cid}))
                        stats["polling"]["calls"] += 1
                        stats["polling"]["tokens"] += tokens(body)
                        if json.loads(body)["phase"] in ("complete", "failed", "cancelled"):
                            return
                        await anyio.sleep(POLL_EVERY_S)

                async def wait() -> None:
                    since = None
                    while True:
                        args = {"campaign_id": cid, **({"since": since} if since is not None else {})}
                        body = text(await waiter.call_tool("campaign_wait", args))
                        stats["waiting"]["calls"] += 1
                        stats["waiting"]["tokens"] += tokens(body)
                        answer = json.loads(body)
                        since = answer["version"]
                        if answer["next"]["tool"] != "campaign_wait":
                            done.set()
                            return

                async def push() -> None:
                    seen = 0
                    while True:
                        while seen >= len(updates):
                            await arrived.wait()
                        note = updates[seen]
                        seen += 1
                        body = (await pushed.read_resource(uri)).contents[0].text  # type: ignore[union-attr]
                        stats["pushed"]["calls"] += 1
                        wire = note.model_dump(mode="json", by_alias=True, exclude_none=True)
                        stats["pushed"]["tokens"] += tokens(json.dumps(wire)) + tokens(body)
                        if json.loads(body)["phase"] in ("complete", "failed", "cancelled"):
                            return

                start = time.monotonic()
                async with anyio.create_task_group() as tg:
                    tg.start_soon(poll)
                    tg.start_soon(wait)
                    tg.start_soon(push)
                stats["_"] = {"calls": 0, "tokens": 0, "duration_s": time.monotonic() - start}
    return stats


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--step-delay", type=float, default=8.0, help="seconds per research step")
    args = parser.parse_args()
    stats = anyio.run(run, args.step_delay)
    duration = stats.pop("_")["duration_s"]
    base = stats["polling"]["tokens"]
    print(f"One campaign, 7 steps, {duration:.0f} s; tokens counted with cl100k_base (bpe-openai).\n")
    print("| following by | calls or updates | tokens read | tokens per call | vs 5 s polling | reference design |")
    print("|---|---:|---:|---:|---:|---|")
    reference = {"polling": "~500 per poll", "waiting": "-", "pushed": "~150 per update (70% saved)"}
    for name, label in (
        ("polling", "campaign_status every 5 s"),
        ("waiting", "campaign_wait loop"),
        ("pushed", "resources/updated + re-read"),
    ):
        s = stats[name]
        saved = "-" if name == "polling" else f"{100 * (1 - s['tokens'] / base):.0f}% fewer"
        print(
            f"| {label} | {s['calls']} | {s['tokens']:,} | {s['tokens'] / max(1, s['calls']):.0f} | {saved} | "
            f"{reference[name]} |"
        )


if __name__ == "__main__":
    main()
