"""Which event loop the server runs on: uvloop cut the CPU per pushed notification by about 20%."""

from __future__ import annotations

import importlib.util

from deepr_mcp.errors import InvalidInput


def use_uvloop(choice: str) -> bool:
    """``auto``: uvloop when installed (a dependency except on Windows); ``uvloop``: required; ``asyncio``: never."""
    installed = importlib.util.find_spec("uvloop") is not None
    if choice == "uvloop" and not installed:
        raise InvalidInput("event_loop = 'uvloop' but uvloop is not installed; use 'auto' or 'asyncio'")
    return choice != "asyncio" and installed
