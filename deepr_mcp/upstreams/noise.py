"""A stdio upstream's stdout lines that are not JSON-RPC: counted, and logged at a bounded rate.

A server that prints its own logging on stdout (a common mistake) or garbage would otherwise cost
a logged traceback per line: 5,000 lines made 60,000 log lines. The first few lines are logged as
they come, then one summary line per ``every`` lines, and a total when the session ends; never a
traceback, and the lines never reach the session (no request can be answered by them).
"""

from __future__ import annotations

import logging

__all__ = ["NoiseLog"]

logger = logging.getLogger(__name__)

FIRST = 3
EVERY = 1000
SHOWN_CHARS = 160


class NoiseLog:
    """Counts one upstream's unreadable lines and says so, rarely."""

    def __init__(self, upstream: str, *, first: int = FIRST, every: int = EVERY) -> None:
        self.upstream = upstream
        self.first = first
        self.every = every
        self.count = 0
        self._reported = 0

    def note(self, line: str, why: str = "not JSON-RPC") -> None:
        self.count += 1
        if self.count <= self.first:
            more = "; further ones are counted and summarised" if self.count == self.first else ""
            logger.warning(
                "upstream %s printed a stdout line that is %s (ignored%s): %r",
                self.upstream,
                why,
                more,
                line[:SHOWN_CHARS],
            )
            self._reported = self.count
        elif self.count % self.every == 0:
            self._summary("so far")

    def close(self) -> None:
        if self.count > self._reported:
            self._summary("in this session")

    def _summary(self, when: str) -> None:
        logger.warning(
            "upstream %s: %d stdout lines that are not JSON-RPC ignored %s (a server must write only "
            "protocol messages on stdout; its logging belongs on stderr)",
            self.upstream,
            self.count,
            when,
        )
        self._reported = self.count
