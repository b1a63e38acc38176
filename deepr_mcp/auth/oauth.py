"""The OAuth resource-server layer of the HTTP app, in one piece the transport can add.

``oauth_layer(settings)`` returns what ``transports/http.py`` needs: the SDK's
``AuthenticationMiddleware(BearerAuthBackend(verifier))`` and ``AuthContextMiddleware`` for the
whole app, the RFC 9728 metadata routes, and ``protect(app)`` wrapping an endpoint in the SDK's
``RequireAuthMiddleware`` (401 with ``WWW-Authenticate: Bearer ... resource_metadata="..."``,
403 ``insufficient_scope`` when a required scope is missing).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import AccessToken, TokenVerifier
from pydantic import AnyHttpUrl
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.routing import Route
from starlette.types import ASGIApp

from deepr_mcp.auth.jwt_verifier import JwtVerifier
from deepr_mcp.auth.metadata import metadata_routes, metadata_url
from deepr_mcp.auth.settings import SCOPES
from deepr_mcp.config import Settings


class StaticTokenVerifier:
    """The configured ``auth_token`` beside OAuth: one principal with every scope.

    Stands in until the principals' composite verifier (``auth/verifiers.py``) takes its place.
    """

    def __init__(self, token: str) -> None:
        self._expected = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if not hmac.compare_digest(token.encode(), self._expected):
            return None
        return AccessToken(token=token, client_id="token", scopes=list(SCOPES))


class FirstOf:
    """Tries verifiers in order; the first that accepts the token wins."""

    def __init__(self, *verifiers: TokenVerifier) -> None:
        self.verifiers = verifiers

    async def verify_token(self, token: str) -> AccessToken | None:
        for verifier in self.verifiers:
            if (accepted := await verifier.verify_token(token)) is not None:
                return accepted
        return None


@dataclass
class OAuthLayer:
    verifier: TokenVerifier
    required_scopes: list[str]
    metadata_url: AnyHttpUrl
    routes: list[Route] = field(default_factory=list)

    @property
    def middleware(self) -> list[Middleware]:
        """Authenticate every request (a bad or missing token only leaves it anonymous)."""
        return [
            Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(self.verifier)),
            Middleware(AuthContextMiddleware),
        ]

    def protect(self, app: ASGIApp) -> ASGIApp:
        """``app`` reachable only with an accepted token holding the required scopes."""
        return RequireAuthMiddleware(app, self.required_scopes, self.metadata_url)


def oauth_layer(settings: Settings, verifier: TokenVerifier | None = None) -> OAuthLayer | None:
    """The layer when ``[auth.oauth]`` is configured, else ``None``.

    ``verifier`` replaces the default (JWTs, then the static ``auth_token`` if one is set).
    """
    oauth = settings.auth.oauth
    if oauth is None:
        return None
    if verifier is None:
        jwts = JwtVerifier(oauth)
        token = settings.auth_token.get_secret_value() if settings.auth_token is not None else None
        verifier = FirstOf(StaticTokenVerifier(token), jwts) if token else jwts
    return OAuthLayer(verifier, list(oauth.required_scopes), metadata_url(oauth), metadata_routes(oauth))


def public_hosts_and_origins(settings: Settings) -> tuple[list[str], list[str]]:
    """The resource URL's ``Host`` and ``Origin`` (exact values), for the DNS-rebinding check.

    Behind a reverse proxy clients reach the server by its public name, which is the resource
    URL's; without this an operator would have to repeat it in ``http.allowed_hosts``.
    """
    if settings.auth.oauth is None:
        return [], []
    parts = urlsplit(settings.auth.oauth.resource_url)
    return [parts.netloc], [f"{parts.scheme}://{parts.netloc}"]
