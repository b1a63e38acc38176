"""One JSON-RPC shape check for every transport, answered the way the spec says.

The SDK validates envelopes differently per transport: handshake-era streamable HTTP answers
``-32602`` with a pydantic dump, the legacy ``/messages/`` endpoint logs a traceback, and all of
them read a request whose id is ``1.5``, ``{}``, ``true`` or ``null`` as a notification and never
answer it. ``problem_of`` names what is wrong with a decoded message (``None`` when it is a
well-formed MCP message); ``guard_jsonrpc`` answers malformed POST bodies before the SDK sees them.

MCP narrows JSON-RPC 2.0: an id is a string or an integer, never null (JSON-RPC also allows
numbers with fractions and null), params are an object, and since 2025-06-18 there are no batches.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from mcp.server.transport_security import (
    RequestBodyLimitMiddleware,
    TransportSecurityMiddleware,
    TransportSecuritySettings,
)
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from deepr_mcp.transports.task_routing import name_mismatch

logger = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
_ALLOWED = (
    "send one JSON object with jsonrpc '2.0' and either a method (string) with optional params (object) "
    "and, for a request, an id (string or integer), or a response with that id and a result or error"
)


@dataclass(frozen=True)
class Problem:
    """Why a message was refused: the JSON-RPC error code and a message naming the fault."""

    code: int
    reason: str

    @property
    def message(self) -> str:
        prefix = "Parse error" if self.code == PARSE_ERROR else "Invalid Request"
        return f"{prefix}: {self.reason}; {_ALLOWED}"

    def error(self) -> dict[str, Any]:
        """The JSON-RPC error response (id null: a malformed message's id cannot be trusted)."""
        return {"jsonrpc": "2.0", "id": None, "error": {"code": self.code, "message": self.message}}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({json.dumps(value)})"
    if isinstance(value, float):
        return f"a number with a fraction ({value!r})"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string" if value else "an empty string"
    if isinstance(value, int):
        return f"an integer ({value})" if abs(value) < 10**12 else "an integer"
    return f"a {type(value).__name__}"


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or _is_integer(value)


def _invalid(reason: str) -> Problem:
    return Problem(INVALID_REQUEST, reason)


def problem_of(message: Any) -> Problem | None:
    """What makes ``message`` (decoded JSON) not one MCP JSON-RPC message, or None if it is one."""
    if isinstance(message, list):
        return _invalid("batches (JSON arrays) are not supported: MCP removed JSON-RPC batching in 2025-06-18")
    if not isinstance(message, dict):
        return _invalid(f"the message is {_kind(message)}, not a JSON object")
    if "jsonrpc" not in message:
        return _invalid("the jsonrpc member is missing")
    if message["jsonrpc"] != "2.0":
        return _invalid(f"jsonrpc must be the string '2.0', got {json.dumps(message['jsonrpc'])[:40]}")
    error_reply = "method" not in message and "error" in message
    if "id" in message and not _is_id(message["id"]) and not (error_reply and message["id"] is None):
        return _invalid(f"id must be a string or an integer, got {_kind(message['id'])}")
    if "method" in message:
        if not isinstance(message["method"], str) or not message["method"]:
            return _invalid(f"method must be a non-empty string, got {_kind(message['method'])}")
        if "params" in message and not isinstance(message["params"], dict):
            return _invalid(f"params must be an object (MCP uses named params), got {_kind(message['params'])}")
        return None
    return _response_problem(message)


def _response_problem(message: dict[str, Any]) -> Problem | None:
    has_result, has_error = "result" in message, "error" in message
    if not has_result and not has_error:
        return _invalid("the message has neither a method (request or notification) nor a result or error")
    if has_result and has_error:
        return _invalid("a response carries a result or an error, not both")
    if "id" not in message and has_result:
        return _invalid("a response needs the id of the request it answers")
    if has_result and not isinstance(message["result"], dict):
        return _invalid(f"result must be an object, got {_kind(message['result'])}")
    error = message.get("error")
    if has_error and not (
        isinstance(error, dict) and _is_integer(error.get("code")) and isinstance(error.get("message"), str)
    ):
        return _invalid("error must be an object with an integer code and a string message")
    return None


def problem_of_text(text: str | bytes) -> Problem | None:
    """``problem_of`` for raw text: a parse error when it is not JSON (or not UTF-8)."""
    try:
        decoded = json.loads(text)
    except RecursionError:
        return Problem(
            PARSE_ERROR, "the message nests arrays or objects too deeply to read (a few hundred levels at most)"
        )
    except ValueError as error:  # also bad UTF-8 and integer literals too long to convert
        return Problem(PARSE_ERROR, f"the message is not valid JSON ({_why_not_json(error)})")
    return problem_of(decoded)


def _why_not_json(error: ValueError) -> str:
    """The decoder's own reason, position included, without echoing the caller's bytes back."""
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at line {error.lineno} column {error.colno}"
    if isinstance(error, UnicodeDecodeError):
        return f"not UTF-8 at byte {error.start}"
    return "a number literal too long to read" if "digits" in str(error) else "unreadable"


class _Guard:
    def __init__(self, app: ASGIApp, security: TransportSecurityMiddleware, transport: str) -> None:
        self.app, self.security, self.transport = app, security, transport

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        scope = {**scope, "headers": [(k, _trim_mcp_header(k, v)) for k, v in scope["headers"]]}
        request = Request(scope, receive)
        body = await request.body()
        problem = problem_of_text(body)
        if problem is None:
            mismatch = name_mismatch(body, request.headers)
            if mismatch is not None:
                refusal = Response(json.dumps(mismatch), status_code=400, media_type="application/json")
                await refusal(scope, receive, send)
                return
            await self.app(scope, _replay(body, receive), send)
            return
        refused = await self.security.validate_request(request, is_post=True)
        if refused is not None:  # a rebinding attempt hears the same as with a valid body
            await refused(scope, receive, send)
            return
        client = scope.get("client") or ("?", 0)
        logger.warning("refused a malformed %s POST from %s: %s", self.transport, client[0], problem.reason)
        body_out = json.dumps(problem.error()).encode()
        await Response(body_out, status_code=400, media_type="application/json")(scope, receive, send)


def _trim_mcp_header(name: bytes, value: bytes) -> bytes:
    """RFC 9110 §5.5: a field value excludes leading and trailing whitespace; the SDK compares MCP
    routing headers (``Mcp-Name``, ``Mcp-Method``...) with body values as received."""
    return value.strip(b" \t") if name.startswith(b"mcp-") else value


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def guard_jsonrpc(app: ASGIApp, security: TransportSecuritySettings, max_body_bytes: int, *, transport: str) -> ASGIApp:
    """``app`` behind the shape check; the body limit applies first, so no more than it is ever read."""
    guard = _Guard(app, TransportSecurityMiddleware(security), transport)
    return RequestBodyLimitMiddleware(guard, max_body_bytes)
