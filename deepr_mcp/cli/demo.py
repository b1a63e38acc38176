"""``deepr-mcp demo``: the whole idea in one run, narrated, on the embedded default.

A real server subprocess and real SDK clients: the two-tool gateway and its size against the
full catalogue, a search that reveals the campaign tools, the bundled sample corpus added by asking
for it, a campaign on it, a second agent on its own connection subscribed to the same campaign, progress bars
driven by pushed updates, a budget question answered at the terminal (the default answer after a
few seconds without one), and the cited report with the sandbox's artefact list.

Agent A launches the server as a stdio subprocess (``serve --stdio --http 127.0.0.1:0``, one
process serving both), and agent B joins the same server over HTTP. The local provider costs
nothing, so the demo prices it like a paid model with the documented price overrides; that is
what makes the budget question appear with no key.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning

from deepr_mcp.app.wire import to_mcp_tool
from deepr_mcp.gateway.gateway import CALL_SPEC, SEARCH_SPEC
from deepr_mcp.tools import all_tools

QUESTION = "Why did the first transatlantic telegraph cable fail, and how are cable faults repaired today?"
DEMO_ENV = {
    "DEEPR_PRICE_INPUT_PER_MTOK": "3.0",  # priced like a mid-range paid model
    "DEEPR_PRICE_OUTPUT_PER_MTOK": "15.0",
    "DEEPR_JOBS_STEP_DELAY_S": "0.4",  # slow enough to watch the bars move
    "DEEPR_BUDGET_TIMEOUT_S": "120",
}
BUDGET = 0.02
APPROVED = 0.25


def wire_bytes(tools: list[types.Tool]) -> int:
    dumped = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    return len(json.dumps({"tools": dumped}, separators=(",", ":")).encode())


class _Ready:
    """Hands already-open transport streams to ``Client`` as a transport."""

    def __init__(self, streams: Any) -> None:
        self.streams = streams

    async def __aenter__(self) -> Any:
        return self.streams

    async def __aexit__(self, *exc: object) -> None:
        return None


class Demo:
    def __init__(self, out: TextIO, answer_wait_s: float) -> None:
        self.out = out
        self.answer_wait_s = answer_wait_s
        self.checks: list[tuple[str, bool]] = []
        self.bars: dict[str, str] = {}
        self.prompting = False
        """While the human is asked, progress is kept but not drawn, so the prompt stays readable."""
        self.decision = "approve_override"

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def check(self, what: str, ok: bool) -> None:
        self.checks.append((what, ok))
        self.say(f"  {'ok' if ok else 'FAILED'}: {what}")

    async def ask_budget(self, context: Any, params: Any) -> types.ElicitResult:
        self.prompting = True
        try:
            self.say(f"\n\n  Budget question from the server (elicitation/create):\n  {params.message}")
            if sys.stdin.isatty():
                prompt = f"  New budget in dollars [{APPROVED}], 'cheaper' (optimise for cost), or 'abort': "
                try:
                    answer = await anyio.to_thread.run_sync(input, prompt)
                except EOFError:  # the terminal closed its input: the default answer
                    answer = ""
            else:
                self.say(f"  (no terminal: answering approve_override ${APPROVED} in {self.answer_wait_s:g}s)")
                await anyio.sleep(self.answer_wait_s)
                answer = ""
        finally:
            self.prompting = False
        return self.decide(answer)

    def decide(self, answer: str) -> types.ElicitResult:
        """Every answer offered is a path the demo follows to its end."""
        word = answer.strip().lower()
        if word in ("abort", "cheaper"):
            self.decision = "abort" if word == "abort" else "optimize_for_cost"
            return types.ElicitResult(action="accept", content={"decision": self.decision})
        try:
            budget = float(word.lstrip("$") or APPROVED)
        except ValueError:
            budget = APPROVED
        self.say(f"  approving a budget of ${budget:g}")
        return types.ElicitResult(action="accept", content={"decision": "approve_override", "new_budget": budget})

    def draw(self, agent: str, status: dict[str, Any]) -> None:
        width = 16
        filled = round(status["progress"] * width)
        bar = "#" * filled + "-" * (width - filled)
        self.bars[agent] = (
            f"{agent[-1]} [{bar}] {status['progress']:4.0%} {status['phase'][:12]:<12} "
            f"${status['cost']:.4f}/${status['budget']:.2f}"
        )
        line = "  " + "   ".join(self.bars[a] for a in sorted(self.bars))
        if self.prompting:
            return
        if self.out.isatty():
            print("\r" + line, end="", file=self.out, flush=True)
        elif line != getattr(self, "_last_line", None):
            self._last_line = line
            print(line, file=self.out, flush=True)

    async def run(self, stdio_streams: Any, base: str) -> bool:
        url = f"{base}/mcp"
        updates: dict[str, int] = {"agent A": 0, "agent B": 0}
        changed = {name: anyio.Event() for name in updates}

        def handler(name: str) -> Any:
            async def on_message(message: Any) -> None:
                if isinstance(message, types.ResourceUpdatedNotification):
                    updates[name] += 1
                    changed[name].set()

            return on_message

        self.say("1. Agent A (stdio, like Claude Desktop) lists tools")
        async with (
            Client(
                _Ready(stdio_streams),
                mode="legacy",
                elicitation_callback=self.ask_budget,
                message_handler=handler("agent A"),
            ) as a,
            Client(url, mode="legacy", message_handler=handler("agent B")) as b,
        ):
            await self._list_tools(a)
            await self._search(a)
            cid, uri = await self._start(a)
            await self._watch_both(a, b, uri, updates, changed)
            await self._report(a, cid)
        ok = all(passed for _, passed in self.checks)
        self.say(
            f"\n{'Every step did what it said.' if ok else 'Some steps failed.'} "
            f"({sum(p for _, p in self.checks)}/{len(self.checks)} checks)"
        )
        return ok

    async def _list_tools(self, a: Client) -> None:
        listed = (await a.list_tools()).tools
        full = wire_bytes([to_mcp_tool(s) for s in [SEARCH_SPEC, CALL_SPEC, *all_tools()]])
        first = wire_bytes(listed)
        self.say(f"   tools/list: {[t.name for t in listed]}: {first:,} bytes")
        self.say(
            f"   the full catalogue ({len(all_tools())} tools) would be {full:,} bytes: "
            f"{100 * (1 - first / full):.0f}% smaller"
        )
        self.check(
            "the first tools/list is the two-tool gateway, under 1 KB",
            [t.name for t in listed] == ["tool_search", "tool_call"] and first < 1024,
        )

    async def _search(self, a: Client) -> None:
        self.say("\n2. tool_search finds the campaign tools by meaning")
        found = await a.call_tool("tool_search", {"query": "start a research campaign and follow it", "limit": 3})
        hits = [h["name"] for h in (found.structured_content or {}).get("hits", [])]
        self.say(f"   hits: {hits}")
        self.check("campaign_start is found", "campaign_start" in hits)

    async def _start(self, a: Client) -> tuple[Any, Any]:
        self.say(
            "\n3. Agent A asks for the bundled sample corpus (an empty corpus refuses campaigns; nothing is added "
            "unasked)"
        )
        added = await a.call_tool("tool_call", {"name": "corpus_add", "arguments": {"sample": True}})
        self.say(f"   corpus_add(sample=true): {(added.structured_content or {}).get('added')} documents added")
        self.check("the sample was added when asked for", not added.is_error)
        self.say(f"   then starts a campaign on it, budget ${BUDGET}")
        started = await a.call_tool(
            "tool_call", {"name": "campaign_start", "arguments": {"question": QUESTION, "budget": BUDGET}}
        )
        campaign = started.structured_content or {}
        cid, uri = campaign.get("campaign_id"), campaign.get("resources", {}).get("status")
        self.say(f"   campaign {cid}: {QUESTION}")
        self.check("the campaign started at once", bool(cid) and not started.is_error)
        return cid, uri

    async def _watch_both(
        self, a: Client, b: Client, uri: Any, updates: dict[str, int], changed: dict[str, anyio.Event]
    ) -> None:
        self.say("\n4. Agent B, over HTTP, subscribes to the same campaign; both watch pushed updates")
        await a.subscribe_resource(uri)
        await b.subscribe_resource(uri)
        final: dict[str, Any] = {}
        with anyio.fail_after(180):
            async with anyio.create_task_group() as tg:
                for name, client in (("agent A", a), ("agent B", b)):
                    tg.start_soon(self._watch, name, client, uri, changed, final)
        self.say("")
        self.check("both agents received pushed updates", all(n > 0 for n in updates.values()))
        decisions = final.get("decisions", [])
        self.check("a budget question was asked and answered", bool(decisions))
        if self.decision == "abort":
            self.check("the campaign stopped as asked, keeping a partial report", final.get("phase") == "cancelled")
        else:
            self.check("the campaign completed", final.get("phase") == "complete")
        limits = [final.get("budget", 0)] + [d.get("new_budget") or 0 for d in decisions]
        self.check("spend stayed within the budget in force", final.get("cost", 0) <= max(limits) + 1e-9)

    async def _report(self, a: Client, cid: Any) -> None:
        self.say("\n5. The cited report (first lines) and the sandbox's artefacts")
        report = (await a.call_tool("campaign_report", {"campaign_id": cid})).content[0].text
        for line in report.splitlines()[:12]:
            self.say(f"   {line}")
        self.say("   ...")
        extracted = (await a.call_tool("sandbox_extract", {"campaign_id": cid})).structured_content or {}
        artefacts = [x["path"] for x in extracted.get("artifacts", [])]
        self.say(f"   artefacts: {artefacts}")
        if self.decision == "abort":
            self.check("the partial report says it is partial", "Partial report" in report and "## Sources" in report)
            self.check("the sandbox holds the partial report", "final_report.md" in artefacts)
            return
        self.check("the report cites numbered sources", bool(re.search(r"\[\d+\]", report)) and "## Sources" in report)
        self.check(
            "the sandbox holds the final report and notes",
            "final_report.md" in artefacts and any(p.startswith("notes/") for p in artefacts),
        )

    async def _watch(self, name: str, client: Client, uri: str, changed: dict, final: dict) -> None:
        while True:
            status = json.loads((await client.read_resource(uri)).contents[0].text)
            self.draw(name, status)
            if status["phase"] in ("complete", "cancelled", "failed"):
                final.update(status)
                return
            changed[name] = anyio.Event() if changed[name].is_set() else changed[name]
            with anyio.move_on_after(5):
                await changed[name].wait()
            changed[name] = anyio.Event()


def run_demo(out: TextIO = sys.stdout, answer_wait_s: float = 3.0, data_dir: Path | None = None) -> int:
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)  # the demo speaks the 2025-11-25 era on purpose
    logging.getLogger("client").setLevel(logging.ERROR)  # the SDK client's notes about unlisted tools
    logging.getLogger("mcp").setLevel(logging.ERROR)
    return anyio.run(_run_demo, out, answer_wait_s, data_dir)


async def _run_demo(out: TextIO, answer_wait_s: float, data_dir: Path | None) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        data = data_dir or Path(tmp) / "data"
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("DEEPR_")},
            **DEMO_ENV,
            "DEEPR_DATA_DIR": str(data),
            "DEEPR_CONFIG": "",
        }
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "deepr_mcp", "serve", "--stdio", "--http", "127.0.0.1:0"], env=env
        )
        log_path = Path(tmp) / "server.log"
        with log_path.open("w") as log:
            async with stdio_client(params, errlog=log) as streams:
                with anyio.fail_after(30):
                    # The subprocess announces its HTTP URL on stderr; there is no event to wait on.
                    while not (match := re.search(r"(http://127\.0\.0\.1:\d+)/mcp", log_path.read_text())):  # noqa: ASYNC110
                        await anyio.sleep(0.05)
                print(
                    f"deepr-mcp demo: agent A launched the server as a stdio subprocess; it also serves "
                    f"{match.group(1)}/mcp for agent B (data in {data})\n",
                    file=out,
                )
                ok = await Demo(out, answer_wait_s).run(streams, match.group(1))
        return 0 if ok else 1
