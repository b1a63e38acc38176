"""A client on the 1.x mcp SDK (run under its own venv): the whole scenario, printed as JSON.

Usage: python v1_client.py URL QUESTION BUDGET
"""

import asyncio
import json
import sys

import mcp.types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


async def main(url: str, question: str, budget: float) -> None:
    seen = {"updates": 0, "elicited": 0, "progress": 0, "list_changed": 0}
    changed = asyncio.Event()

    async def on_message(message):  # RequestResponder | ServerNotification | Exception
        root = getattr(message, "root", None)
        if isinstance(root, types.ResourceUpdatedNotification):
            seen["updates"] += 1
            changed.set()
        elif isinstance(root, types.ToolListChangedNotification):
            seen["list_changed"] += 1

    async def on_elicit(context, params):
        seen["elicited"] += 1
        return types.ElicitResult(action="accept", content={"decision": "approve_override", "new_budget": 1.0})

    async def on_progress(progress, total, message):
        seen["progress"] += 1

    async with streamablehttp_client(url) as (read, write, _):
        async with ClientSession(read, write, message_handler=on_message, elicitation_callback=on_elicit) as session:
            init = await session.initialize()
            tools = [t.name for t in (await session.list_tools()).tools]
            hits = json.loads(
                (await session.call_tool("tool_search", {"query": "start a research campaign"})).content[0].text
            )
            started = await session.call_tool(
                "tool_call", {"name": "campaign_start", "arguments": {"question": question, "budget": budget}}
            )
            campaign = json.loads(started.content[0].text)
            uri = campaign["resources"]["status"]
            await session.subscribe_resource(uri)
            while True:
                status = json.loads((await session.read_resource(uri)).contents[0].text)
                if status["phase"] in ("complete", "cancelled", "failed"):
                    break
                changed.clear()
                waited = await session.call_tool(
                    "campaign_wait",
                    {
                        "campaign_id": campaign["campaign_id"],
                        "until": "phase",  # within a phase, progress notifications report each step
                        "timeout_s": 20,
                    },
                    progress_callback=on_progress,
                )
            report = await session.call_tool("campaign_report", {"campaign_id": campaign["campaign_id"]})
            print(
                json.dumps(
                    {
                        "protocol": init.protocolVersion,
                        "tools": tools,
                        "first_hit": hits["hits"][0]["name"],
                        "status": status,
                        "report": report.content[0].text,
                        "wait_error": waited.isError,
                        **seen,
                    }
                )
            )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
