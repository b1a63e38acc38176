"""Background work that can fail alone: a follower's error ends that follower, never the process.

Task watchers, progress senders and change broadcasts run in the server's one background task
group; an exception escaping any of them would cancel the group and stop the server. Each is
started through ``contained``, which logs what ended it (a ``DeeprError`` by its message, anything
else with its traceback) and lets the rest serve on.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from deepr_mcp.errors import DeeprError

logger = logging.getLogger(__name__)


def contained(start_soon: Callable[..., object]) -> Callable[..., None]:
    """A ``spawn(func, *args)`` over ``start_soon`` whose tasks' errors are logged, not raised."""

    def spawn(func: Callable[..., Awaitable[Any]], *args: Any) -> None:
        start_soon(_guarded, func, args)

    return spawn


async def _guarded(func: Callable[..., Awaitable[Any]], args: tuple[Any, ...]) -> None:
    name = getattr(func, "__qualname__", repr(func))
    try:
        await func(*args)
    except DeeprError as exc:
        logger.warning("background %s ended: %s", name, exc.message)
    except Exception:
        logger.exception("background %s failed; the server keeps serving", name)
