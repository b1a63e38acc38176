"""stdio answers ``initialize`` while the services are still opening, and every other request waits for them.

The root is held closed by a gate the test controls (the worker thread that builds it waits on
it), so "before the services are open" is a state the test sees, not a race it hopes to win.
"""

from __future__ import annotations

import threading
from pathlib import Path

import anyio
import pytest
from mcp import Client

from deepr_mcp.app import opening as opening_module
from deepr_mcp.app.opening import Opening
from deepr_mcp.app.server import INSTRUCTIONS, build_server
from deepr_mcp.config import Settings

GUARD_S = 60  # generous: only a hang reaches it


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The root is built only once the test sets this event."""
    opened = threading.Event()
    build = opening_module.build_root

    def gated(settings: Settings):  # type: ignore[no-untyped-def]
        if not opened.wait(GUARD_S):
            raise TimeoutError("the test never let the root open")
        return build(settings)

    monkeypatch.setattr(opening_module, "build_root", gated)
    return opened


async def test_initialize_is_answered_before_the_services_open(tmp_path: Path, gate: threading.Event) -> None:
    opening = Opening(Settings(data_dir=tmp_path / "data"))
    with anyio.fail_after(GUARD_S):
        async with anyio.create_task_group() as tg:
            tg.start_soon(opening.hold)
            async with Client(build_server(opening), mode="legacy") as client:  # initialize happens here
                assert client.instructions == INSTRUCTIONS
                assert client.server_capabilities.tools is not None
                assert opening.root is None, "initialize waited for the services"
                assert not (tmp_path / "data").exists(), "the stores opened before the answer"

                listed: list[str] = []

                async def list_tools() -> None:
                    listed.extend(tool.name for tool in (await client.list_tools()).tools)

                async with anyio.create_task_group() as waiting:
                    waiting.start_soon(list_tools)
                    await anyio.wait_all_tasks_blocked()
                    assert listed == [], "tools/list was answered without the services"
                    gate.set()
                assert "tool_search" in listed and "tool_call" in listed
                assert (tmp_path / "data" / "campaigns.db").exists()
            opening.release()
    assert opening.root is not None and opening.root.state == "closed"
