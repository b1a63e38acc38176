"""SEP-2663: ``tasks/get``, ``tasks/update`` and ``tasks/cancel`` carry their ``taskId`` in the
``Mcp-Name`` header too, so gateways can route by header; a missing or different header is -32020
(header mismatch) with HTTP 400.

The SDK checks ``Mcp-Name`` only for its own name-bearing methods (``tools/call``, ``prompts/get``,
``resources/read``); the tasks extension's methods are ours, so the check is ours, in the same
shape and with the SDK's header decoding (``=?base64?…?=`` for values that are not plain ASCII).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mcp.shared.inbound import MCP_NAME_HEADER, MCP_PROTOCOL_VERSION_HEADER, decode_header_value
from mcp_types import HEADER_MISMATCH
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["TASK_ID_METHODS", "name_mismatch"]

TASK_ID_METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})


def name_mismatch(body: bytes, headers: Mapping[str, str]) -> dict[str, Any] | None:
    """The -32020 error response when a 2026-07-28 task request's ``Mcp-Name`` is not its ``taskId``."""
    if headers.get(MCP_PROTOCOL_VERSION_HEADER) not in MODERN_PROTOCOL_VERSIONS or b"tasks/" not in body:
        return None
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None  # the shape check has answered this already
    if not isinstance(message, dict) or message.get("method") not in TASK_ID_METHODS:
        return None
    params = message.get("params")
    task_id = params.get("taskId") if isinstance(params, dict) else None
    header = decode_header_value(headers.get(MCP_NAME_HEADER))
    if not isinstance(task_id, str) or header == task_id:
        return None  # a missing or non-string taskId is the handler's -32602
    said = "is missing" if header is None else "does not match the request body's 'taskId' parameter"
    return {
        "jsonrpc": "2.0",
        "id": message.get("id"),
        "error": {"code": HEADER_MISMATCH, "message": f"{MCP_NAME_HEADER} header {said} (send the taskId)"},
    }
