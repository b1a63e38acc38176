"""A small upstream MCP server on the Python SDK, for federation tests: it can be slow, crash,
misbehave at start-up, change its tool list, or publish a thousand tools.

    python -m tests.upstreams.fixture_server [--tools N] [--start normal|exit|garbage|silent]
                                              [--marks DIR] [--hostile NAME ...]

``--start``: ``exit`` exits at once; ``garbage`` prints non-JSON on stdout and never answers;
``silent`` reads stdin and never answers ``initialize``. ``--marks`` is a folder where the server leaves
evidence: ``cancelled-<seconds>`` when a slow call is cancelled (``notifications/cancelled``),
``max-inflight`` (the most slow calls running at once), and a line in ``listed`` per tools/list.
It imports nothing from deepr_mcp: it is an upstream, not part of the server under test.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server

PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
EMPTY: dict[str, Any] = {"type": "object"}
TEXT_ARG = {"type": "object", "properties": {"text": {"type": "string", "description": "What to echo"}}}
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()

RECORDS_SCHEMA: dict[str, Any] = {
    "$defs": {
        "record": {
            "type": "object",
            "properties": {"id": {"type": "integer"}, "title": {"type": "string"}},
            "required": ["id", "title"],
        }
    },
    "type": "object",
    "properties": {"records": {"type": "array", "items": {"$ref": "#/$defs/record"}}},
    "required": ["records"],
}
POINTER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"a": {"type": "string"}, "b": {"$ref": "#/properties/a"}},
    "required": ["a", "b"],
}


def base_tools() -> list[types.Tool]:
    return [
        types.Tool(
            name="echo",
            title="Echo",
            description="Echo the given text back, as text and as structured content.",
            input_schema={**TEXT_ARG, "required": ["text"]},
            output_schema={"type": "object", "properties": {"echo": {"type": "string"}}, "required": ["echo"]},
            annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
        ),
        types.Tool(
            name="records",
            description="List this many numbered records (structured content whose schema uses $defs).",
            input_schema={"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]},
            output_schema=RECORDS_SCHEMA,
        ),
        types.Tool(
            name="pointer",
            description="Answer two copies of a long text (a schema with a JSON pointer into its own properties).",
            input_schema={"type": "object", "properties": {"chars": {"type": "integer"}}, "required": ["chars"]},
            output_schema=POINTER_SCHEMA,
        ),
        types.Tool(
            name="picture", description="Return a one-pixel PNG picture and a caption.", input_schema={"type": "object"}
        ),
        types.Tool(
            name="slow",
            description="Sleep for the given number of seconds, then answer.",
            input_schema={"type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]},
        ),
        types.Tool(name="crash", description="Exit the server process at once.", input_schema=EMPTY),
        types.Tool(name="fail", description="Answer with a tool error on purpose.", input_schema=EMPTY),
        types.Tool(
            name="add_tool",
            description="Publish one more tool and announce the change with tools/list_changed.",
            input_schema={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        ),
        types.Tool(
            name="huge",
            description="Return this many megabytes of text.",
            input_schema={"type": "object", "properties": {"megabytes": {"type": "number"}}, "required": ["megabytes"]},
        ),
        types.Tool(
            name="search",
            description="Search the fixture's archive; answers a results list of title, url and snippet.",
            input_schema={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        ),
        types.Tool(
            name="corpus_search",
            description="Search this upstream's own documents (its name collides with deepr's local tool).",
            input_schema={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        ),
        types.Tool(name="tool_search", description="A tool named like the gateway's own.", input_schema=EMPTY),
        types.Tool(
            name="dotted.name/with spaces",
            description="A tool whose name some clients reject.",
            input_schema={"type": "object"},
        ),
    ]


ARCHIVE = [
    {
        "title": "Whitehouse and the 2,000 volts",
        "url": "https://archive.example/1858/whitehouse",
        "snippet": "The first transatlantic telegraph cable failed in 1858 after Wildman Whitehouse applied about "
        "2,000 volts to the cable to speed up signalling, which broke down its insulation within weeks.",
    },
    {
        "title": "Gutta-percha insulation of the 1858 cable",
        "url": "https://archive.example/1858/insulation",
        "snippet": "The 1858 transatlantic cable's gutta-percha insulation was applied unevenly, so the copper "
        "conductor sat off centre and the insulation had weak spots that later failed.",
    },
    {
        "title": "Valentia Island weather",
        "url": "https://archive.example/valentia/weather",
        "snippet": "Rainfall records kept on Valentia Island in the nineteenth century.",
    },
]
"""The fixture's ``search`` archive: items shaped as search tools return them (title, url, snippet)."""


HOSTILE_TOOLS = {
    "big_structured": types.Tool(
        name="big_structured",
        description="Answer one short line of text and this many megabytes of structured content.",
        input_schema={"type": "object", "properties": {"megabytes": {"type": "number"}}, "required": ["megabytes"]},
    ),
    "big_items": types.Tool(
        name="big_items",
        description="Answer a list of two items, the first this many megabytes long.",
        input_schema={"type": "object", "properties": {"megabytes": {"type": "number"}}, "required": ["megabytes"]},
    ),
    "dangling": types.Tool(
        name="dangling",
        description="A tool whose inputSchema has a $ref that points nowhere.",
        input_schema={"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}},
    ),
    "noisy": types.Tool(
        name="noisy",
        description="Print this many lines of garbage on stdout, then answer.",
        input_schema={"type": "object", "properties": {"lines": {"type": "integer"}}, "required": ["lines"]},
    ),
}
"""Tools published only when ``--hostile NAME`` asks for them."""


WIRE = [1]
"""The stdout pipe's descriptor, kept before the SDK's stdio_server diverts fd 1 to stderr."""


def synthetic(count: int) -> list[types.Tool]:
    """``count`` distinct tools (three words each from a small vocabulary), for catalogue-scale runs."""
    tools = []
    for i in range(count):
        words = [WORDS[i % 16], WORDS[(i // 16) % 16], WORDS[(i // 256) % 16]]
        tools.append(
            types.Tool(
                name=f"synthetic_{i:05d}",
                description=f"Synthetic tool {i}: {' '.join(words)} records, listed and looked up by key.",
                input_schema={"type": "object", "properties": {"key": {"type": "string", "description": "Record key"}}},
            )
        )
    return tools


def build(args: argparse.Namespace) -> Server[Any]:
    tools = base_tools() + synthetic(args.tools) + [HOSTILE_TOOLS[name] for name in args.hostile]
    marks = Path(args.marks) if args.marks else None

    inflight = {"now": 0, "max": 0}

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        if marks is not None:  # one line per tools/list request, to count them
            with (marks / "listed").open("a") as fh:
                fh.write("tools/list\n")
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        name = params.name
        if name == "echo":
            text = str(arguments.get("text", ""))
            return types.CallToolResult(content=[types.TextContent(text=text)], structured_content={"echo": text})
        if name == "records":
            found = {
                "records": [{"id": i, "title": f"Record {i} of the archive"} for i in range(int(arguments["count"]))]
            }
            return types.CallToolResult(content=[types.TextContent(text=json.dumps(found))], structured_content=found)
        if name == "pointer":
            long = {"a": "p" * int(arguments["chars"]), "b": "q" * int(arguments["chars"])}
            return types.CallToolResult(content=[types.TextContent(text=json.dumps(long))], structured_content=long)
        if name == "picture":
            return types.CallToolResult(
                content=[types.ImageContent(data=PNG_1PX, mime_type="image/png"), types.TextContent(text="one pixel")]
            )
        if name == "slow":
            seconds = float(arguments.get("seconds", 1))
            inflight["now"] += 1
            inflight["max"] = max(inflight["max"], inflight["now"])
            if marks is not None:
                (marks / "max-inflight").write_text(str(inflight["max"]))
            try:
                await anyio.sleep(seconds)
            except anyio.get_cancelled_exc_class():
                if marks is not None:
                    (marks / f"cancelled-{seconds:g}").write_text(str(time.time()))
                raise
            finally:
                inflight["now"] -= 1
            return types.CallToolResult(content=[types.TextContent(text=f"slept {seconds:g} s")])
        if name in ("big_structured", "big_items"):
            size = int(float(arguments.get("megabytes", 1)) * 1024 * 1024)
            if name == "big_structured":
                body: dict[str, Any] = {"blob": "s" * size, "rows": [{"n": i} for i in range(10)]}
            else:
                body = {"items": ["i" * size, "small"]}
            return types.CallToolResult(content=[types.TextContent(text="see structured")], structured_content=body)
        if name == "search":
            words = {w.strip("?.,").lower() for w in str(arguments.get("query", "")).split() if len(w) > 3}
            hits = [d for d in ARCHIVE if words & set(f"{d['title']} {d['snippet']}".lower().replace(",", "").split())]
            results = {"results": hits}
            return types.CallToolResult(
                content=[types.TextContent(text=json.dumps(results))], structured_content=results
            )
        if name == "noisy":
            garbage = b"".join(b"<garbage line %d: not JSON-RPC {{{>\n" % i for i in range(int(arguments["lines"])))
            os.write(WIRE[0], garbage)  # the real stdout pipe, beside the SDK's own writes
            return types.CallToolResult(content=[types.TextContent(text="printed")])
        if name == "crash":
            os._exit(3)
        if name == "fail":
            return types.CallToolResult(content=[types.TextContent(text="it failed on purpose")], is_error=True)
        if name == "add_tool":
            new = str(arguments.get("name", "added"))
            tools.append(
                types.Tool(name=new, description=f"A tool added at run time: {new}.", input_schema={"type": "object"})
            )
            await ctx.session.send_tool_list_changed()
            return types.CallToolResult(content=[types.TextContent(text=f"added {new}")])
        if name == "huge":
            size = int(float(arguments.get("megabytes", 1)) * 1024 * 1024)
            return types.CallToolResult(content=[types.TextContent(text="x" * size)])
        if name.startswith("synthetic_") or name in ("corpus_search", "tool_search", "dotted.name/with spaces"):
            return types.CallToolResult(content=[types.TextContent(text=f"{name}: {arguments}")])
        if any(t.name == name for t in tools):
            return types.CallToolResult(content=[types.TextContent(text=f"{name} ran")])
        return types.CallToolResult(content=[types.TextContent(text=f"unknown tool {name}")], is_error=True)

    return Server("fixture-upstream", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve(args: argparse.Namespace) -> None:
    server = build(args)
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read, write):
        await server.run(read, write, options)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=0)
    parser.add_argument("--start", choices=["normal", "exit", "garbage", "silent"], default="normal")
    parser.add_argument("--marks")
    parser.add_argument("--hostile", action="append", default=[], choices=sorted(HOSTILE_TOOLS))
    args = parser.parse_args()
    if args.start == "exit":
        print("fixture: exiting at once as asked", file=sys.stderr)
        sys.exit(1)
    if args.start in ("garbage", "silent"):
        if args.start == "garbage":
            print("this is not JSON-RPC {{{", flush=True)
        for _ in sys.stdin:  # never answer
            if args.start == "garbage":
                print("<html>still not JSON</html>", flush=True)
        return
    WIRE[0] = os.dup(1)
    anyio.run(serve, args)


if __name__ == "__main__":
    main()
