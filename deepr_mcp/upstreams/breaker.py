"""A circuit breaker: after repeated failures, refuse at once instead of waiting on a dead upstream.

``closed`` lets every call through and counts consecutive failures; at ``threshold`` it turns
``open`` and refuses calls for ``reset_s``; then ``half-open`` lets one trial call through: its
success closes the breaker, its failure opens it again. The clock is injectable so tests
never sleep.

A call cut by its timeout counts as a failure only when no other call succeeded while it waited
(``timed_out``): one slow call (a big query) on an upstream that answers others is that call's
problem, and opening the breaker for it would refuse everyone's fast calls for ``reset_s``; an
upstream on which every call times out is hung, and the breaker spares each caller that wait.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

__all__ = ["BreakerState", "CircuitBreaker"]

BreakerState = Literal["closed", "open", "half-open"]


class CircuitBreaker:
    """Failure counting for one upstream; not thread-safe (one event loop owns it)."""

    def __init__(self, threshold: int, reset_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.threshold = threshold
        self.reset_s = reset_s
        self._clock = clock
        self.failures = 0
        self.last_error = ""
        self._opened_at: float | None = None
        self._trial_at: float | None = None
        self._succeeded_at = float("-inf")

    def __str__(self) -> str:
        return f"{self.failures} of {self.threshold}"

    def now(self) -> float:
        """The breaker's clock: when a call starts, for ``timed_out``."""
        return self._clock()

    @property
    def state(self) -> BreakerState:
        if self._opened_at is None:
            return "closed"
        return "open" if self._clock() - self._opened_at < self.reset_s else "half-open"

    def retry_in(self) -> float:
        """Seconds until an open breaker lets a trial call through (0 when it would now)."""
        if self._opened_at is None:
            return 0.0
        return max(0.0, self.reset_s - (self._clock() - self._opened_at))

    def refusal(self) -> str | None:
        """Why a call may not go through now, or ``None`` when it may (claims the half-open trial)."""
        state = self.state
        if state == "closed":
            return None
        now = self._clock()
        if state == "half-open" and (self._trial_at is None or now - self._trial_at >= self.reset_s):
            self._trial_at = now  # a trial that never reports back (its caller gave up) expires after reset_s
            return None
        wait = self.retry_in()
        when = f"retrying in {wait:.0f} s" if wait > 0 else "a trial call is in flight"
        return (
            f"circuit breaker open after {self.failures} consecutive failures "
            f"(last: {self.last_error or 'unknown'}); {when}"
        )

    def timed_out(self, error: str, started: float) -> bool:
        """A call that began at ``started`` ran out of time; ``True`` when it counted as a failure."""
        if self._succeeded_at >= started:
            return False  # the upstream answered others meanwhile: it is up, this call was slow
        self.failure(error)
        return True

    def success(self) -> None:
        self._succeeded_at = self._clock()
        self.failures = 0
        self._opened_at = None
        self._trial_at = None

    def failure(self, error: str) -> None:
        self.failures += 1
        self.last_error = error
        self._trial_at = None
        if self._opened_at is not None or self.failures >= self.threshold:
            self._opened_at = self._clock()
