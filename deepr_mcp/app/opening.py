"""The composition root opened in the background, so a transport answers ``initialize`` at once.

A client launching ``deepr-mcp serve`` over stdio waits for the ``initialize`` answer before it
shows the server as ready; that answer needs only the server's name, instructions and
capabilities. ``Opening`` imports the tool catalogue and the services (numpy, aiohttp, the stores)
in a worker thread, then opens the root in its own task (the task that opens it closes it), while
the transport already reads stdin; requests that need the root wait for it (``app/server.py``).
If opening fails, the task raises and the serving task group ends with that error, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from deepr_mcp.config import Settings

if TYPE_CHECKING:
    from deepr_mcp.app.root import Root
    from deepr_mcp.app.surface import Surface


def build_root(settings: Settings) -> Root:
    """Import what the root composes and build it (registry and gateway included); runs off the event loop."""
    from deepr_mcp.app.handlers import Handlers  # noqa: F401  (imported here so the first request does not)
    from deepr_mcp.app.root import Root

    return Root(settings)


class Opening:
    """A ``SurfaceSource`` for ``build_server``: the root's surface once ``hold`` has opened it."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.root: Root | None = None
        self._opened = anyio.Event()
        self._release = anyio.Event()

    async def ready(self) -> Surface:
        await self._opened.wait()
        assert self.root is not None
        return await self.root.ready()

    async def hold(self) -> None:
        """Build and open the root, keep it open until ``release``, then close it (in this same task)."""
        root = await anyio.to_thread.run_sync(build_root, self.settings)
        async with root:
            self.root = root
            self._opened.set()
            await self._release.wait()

    def release(self) -> None:
        self._release.set()
