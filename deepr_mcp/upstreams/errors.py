"""The federation's errors, and one-line reasons from whatever a transport raised."""

from __future__ import annotations

from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

from deepr_mcp.errors import DeeprError

__all__ = ["UpstreamError", "UpstreamTimeout", "UpstreamUnavailable", "explain"]


class UpstreamUnavailable(DeeprError):
    """The upstream cannot be reached now (down, timed out, breaker open); the message names it and why."""

    code = "upstream_unavailable"


class UpstreamTimeout(DeeprError):
    """The upstream is up but did not answer this call within its ``timeout_s`` (the call was cancelled)."""

    code = "upstream_timeout"


class UpstreamError(DeeprError):
    """The upstream answered, with a protocol error or an unusable result."""

    code = "upstream_error"


def explain(exc: BaseException | None) -> str:
    """A one-line reason from an exception (task groups wrap the real one)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if exc is None:
        return "the session ended before initialize completed"
    if isinstance(exc, FileNotFoundError):
        return f"command not found ({exc.filename or exc})"
    if isinstance(exc, MCPError) and exc.error.code == CONNECTION_CLOSED:
        return "the server closed the connection before answering initialize (did it exit?)"
    if isinstance(exc, MCPError):
        return f"{exc.error.message} (code {exc.error.code})"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
