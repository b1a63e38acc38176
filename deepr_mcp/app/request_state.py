"""``requestState`` sealed at the wire: the SDK's ``RequestStateBoundary`` (AES-256-GCM, expiry,
request and principal binding) around every 2026-07-28 ``input_required`` round.

The plain state (``question#attempt#tag``) was readable and editable by the client: a tampered
state was taken as a fresh round and a forged attempt number honoured. Sealed, any edit answers
-32602 and handlers only ever see state this server minted. The SDK's refusal says only "Invalid or
expired requestState" (its reason goes to the log); ``ExplainedRequestState`` keeps the refusal
and its code but says which kind of fault it was and what to do: retry the original request.

The key: ``store.request_state_key`` (``DEEPR_STORE_REQUEST_STATE_KEY``) when set; else, with
``store.url``, one key generated once and kept in Redis so every replica opens what another sealed
(a retry may land anywhere); else a key generated for this process (a restart forgets it, which
only means a client's pending round is asked again).
"""

from __future__ import annotations

import logging
import secrets
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

if TYPE_CHECKING:
    import redis.asyncio as aioredis

__all__ = ["AUDIENCE", "SHARED_KEY", "ExplainedRequestState", "sealing", "shared_key"]

AUDIENCE = "deepr-mcp"
"""The audience claim: state minted by another service sharing the key is refused."""

SHARED_KEY = "deepr:request_state_key"
TTL_S = 3600.0
"""A round stays answerable for an hour: a human may take a while over a budget question."""


RETRY = (
    "Nothing in this call was done. Send the original request again (the same tool and arguments) without "
    "requestState and inputResponses: the server then asks its question again with a fresh requestState"
)

_FAULTS: dict[str, tuple[str, str]] = {
    "expired": ("expired", f"it has expired (a requestState can be answered for {TTL_S / 3600:g} hour)"),
    "minted in the future": ("expired", "its issue time is in the future (a clock far off, or an altered state)"),
    "request binding": (
        "other_request",
        "it was issued for a different request: it is valid only with the method, tool (or resource) and "
        "arguments of the call that received it",
    ),
    "principal": ("other_caller", "it was issued to a different caller than the credential of this request"),
    "principal drift": ("other_caller", "it was issued to a different caller than the credential of this request"),
}
_NOT_OURS = (
    "not_issued_here",
    "it is not a requestState this server issued, unchanged: it was altered or cut short, or sealed under a key "
    "this server does not hold (replicas share store.request_state_key or the key kept in the store; a server "
    "restarted without either no longer opens what it issued before)",
)
_UNKNOWN = ("unknown", "it is not one this server issued for this request, or it has expired")
"""When the SDK's reason was not seen (its logger silenced): still the refusal, and what to do."""
_reasons: ContextVar[list[str] | None] = ContextVar("deepr_request_state_reasons", default=None)


class _ReasonCatcher(logging.Filter):
    """Hands the SDK's logged reason for a refusal to the request that caused it (it never puts it on
    the wire itself); the log line is kept as it is."""

    def filter(self, record: logging.LogRecord) -> bool:
        caught = _reasons.get()
        if caught is not None and record.msg == "requestState rejected on %s: %s" and len(record.args or ()) == 2:
            caught.append(str(record.args[1]))  # type: ignore[index]
        return True


logging.getLogger("mcp.server.request_state").addFilter(_ReasonCatcher())


class ExplainedRequestState:
    """The SDK's ``RequestStateBoundary``, with its refusals explained.

    Same verdicts and the same -32602; the message says what was wrong (expired, issued for another
    request or another caller, or not issued here unchanged) and that the original request should be
    sent again. It names no principal and shows nothing of the state: a stranger's token learns nothing.
    """

    def __init__(self, boundary: RequestStateBoundary) -> None:
        self.boundary = boundary

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        caught: list[str] = []
        passed = False

        async def handler(inner: ServerRequestContext[Any, Any]) -> HandlerResult:
            nonlocal passed
            passed = True  # verified: what the handlers raise is theirs, never explained here
            return await call_next(inner)

        token = _reasons.set(caught)
        try:
            return await self.boundary(ctx, handler)
        except MCPError as exc:
            if passed or (exc.error.data or {}).get("reason") != "invalid_request_state":
                raise
            cause, why = _FAULTS.get(caught[0], _NOT_OURS) if caught else _UNKNOWN
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"requestState not accepted: {why}. {RETRY}",
                data={"reason": "invalid_request_state", "cause": cause},
            ) from None
        finally:
            _reasons.reset(token)


def sealing(key: str | None) -> ExplainedRequestState:
    """The server middleware that seals outgoing and verifies incoming ``requestState``."""
    security = RequestStateSecurity.ephemeral(ttl=TTL_S) if key is None else RequestStateSecurity(keys=[key], ttl=TTL_S)
    return ExplainedRequestState(RequestStateBoundary(security, default_audience=AUDIENCE))


async def shared_key(client: aioredis.Redis) -> str:
    """The replicas' common key: the first replica to ask generates it, every other reads that one."""
    await client.set(SHARED_KEY, secrets.token_hex(32), nx=True)
    value = await client.get(SHARED_KEY)
    return value.decode() if isinstance(value, bytes) else str(value)
