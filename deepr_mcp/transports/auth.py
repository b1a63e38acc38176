"""Bearer-token check for every HTTP request, for binds that leave the loopback interface."""

from __future__ import annotations

import hmac
import json

from starlette.types import ASGIApp, Receive, Scope, Send


class BearerTokenMiddleware:
    """Rejects any request whose ``Authorization`` is not ``Bearer <token>`` (constant-time compare)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        presented = next((v for k, v in scope["headers"] if k == b"authorization"), b"")
        if hmac.compare_digest(presented, self._expected):
            await self.app(scope, receive, send)
            return
        reason = "missing bearer token" if not presented else "invalid bearer token"
        body = json.dumps(
            {"error": "unauthorized", "error_description": f"{reason}: send 'Authorization: Bearer <token>'"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="deepr-mcp"'),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
