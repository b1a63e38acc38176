"""Every long-lived resource of one server process, opened and closed in one place.

The transports never build services: stdio, streamable HTTP and legacy SSE all serve the
same ``Services`` so that a campaign started over one is visible on the others.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from types import TracebackType

from deepr_mcp.config import Settings
from deepr_mcp.gateway.gateway import Gateway
from deepr_mcp.gateway.registry import ToolRegistry
from deepr_mcp.tools import all_tools


class Services:
    """Opened once per process by the lifespan; closed in reverse order of opening."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.registry = ToolRegistry(all_tools())
        self.gateway = Gateway(self.registry, settings.gateway.mode)
        self._stack = AsyncExitStack()

    async def __aenter__(self) -> Services:
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        await self._stack.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._stack.__aexit__(exc_type, exc, tb)
