"""MCP tasks from the 1.x SDK's own task API (run under its own venv), printed as JSON.

Usage: python v1_tasks.py URL QUESTION
"""

import asyncio
import json
import sys

import mcp.types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


async def main(url: str, question: str) -> None:
    statuses: list[str] = []

    async def on_message(message):  # RequestResponder | ServerNotification | Exception
        root = getattr(message, "root", None)
        if isinstance(root, types.TaskStatusNotification):
            statuses.append(root.params.status)

    start = {"name": "campaign_start", "arguments": {"question": question}}
    async with streamablehttp_client(url) as (read, write, _):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            tasks = session.experimental
            created = await tasks.call_tool_as_task("tool_call", start, ttl=600000)
            task_id = created.task.taskId
            polled = [status.status async for status in tasks.poll_task(task_id)]
            result = await tasks.get_task_result(task_id, types.CallToolResult)
            listed = await tasks.list_tasks()
            second = await tasks.call_tool_as_task("tool_call", start)
            cancelled = await tasks.cancel_task(second.task.taskId)
            for _ in range(300):  # the status notification travels on the GET stream: it may come after the poll
                if "completed" in statuses:
                    break
                await asyncio.sleep(0.1)
            print(
                json.dumps(
                    {
                        "server_tasks": init.capabilities.tasks.model_dump(mode="json", exclude_none=True)
                        if init.capabilities.tasks
                        else None,
                        "created": created.task.status,
                        "polled": polled,
                        "result_error": result.isError,
                        "phase": (result.structuredContent or {}).get("phase"),
                        "report": result.content[0].text,
                        "listed": [t.taskId for t in listed.tasks],
                        "task_id": task_id,
                        "cancelled": cancelled.status,
                        "notified": statuses,
                    }
                )
            )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
