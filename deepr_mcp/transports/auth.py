"""Bearer auth for HTTP through the SDK's own pieces, fed by ``auth.verifiers.token_verifier``.

starlette's ``AuthenticationMiddleware`` with the SDK's ``BearerAuthBackend`` verifies the token
of every request and puts the ``AuthenticatedUser`` in its scope (``principal_of`` reads it
there); ``AuthContextMiddleware`` also sets the SDK's contextvar for code that reads it; the MCP
routes are wrapped in ``RequireAuthMiddleware``, which answers 401 with ``WWW-Authenticate``
when no valid token came. Without a configured token none of this is installed.
"""

from __future__ import annotations

from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import TokenVerifier
from pydantic import AnyHttpUrl
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.types import ASGIApp

__all__ = ["auth_middleware", "require_auth"]


def auth_middleware(verifier: TokenVerifier | None) -> list[Middleware]:
    if verifier is None:
        return []
    return [
        Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier)),
        Middleware(AuthContextMiddleware),
    ]


def require_auth(
    app: ASGIApp,
    verifier: TokenVerifier | None,
    *,
    resource_metadata_url: AnyHttpUrl | None = None,
    required_scopes: list[str] | None = None,
) -> ASGIApp:
    """``app`` behind the SDK's 401 (tools check their own scopes per call; ``required_scopes`` are
    what OAuth deployments demand of every request)."""
    if verifier is None:
        return app
    return RequireAuthMiddleware(
        app, required_scopes=required_scopes or [], resource_metadata_url=resource_metadata_url
    )
