"""The OAuth resource-server layer of the HTTP app, in one piece the transport can add.

The JWT verifier itself joins the other bearer-token verifiers in ``auth/verifiers.py``;
``oauth_layer(settings)`` gives the rest: the RFC 9728 protected-resource metadata routes, the
metadata URL that every 401's ``WWW-Authenticate`` names (``resource_metadata="..."``), and the
scopes every request needs (403 ``insufficient_scope`` without them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pydantic import AnyHttpUrl
from starlette.routing import Route

from deepr_mcp.auth.metadata import metadata_routes, metadata_url
from deepr_mcp.config import Settings


@dataclass
class OAuthLayer:
    required_scopes: list[str]
    metadata_url: AnyHttpUrl
    routes: list[Route] = field(default_factory=list)


def oauth_layer(settings: Settings) -> OAuthLayer | None:
    """The layer when ``[auth.oauth]`` is configured, else ``None``."""
    oauth = settings.auth.oauth
    if oauth is None:
        return None
    return OAuthLayer(list(oauth.required_scopes), metadata_url(oauth), metadata_routes(oauth))


def public_hosts_and_origins(settings: Settings) -> tuple[list[str], list[str]]:
    """The resource URL's ``Host`` and ``Origin`` (exact values), for the DNS-rebinding check.

    Behind a reverse proxy clients reach the server by its public name, which is the resource
    URL's; without this an operator would have to repeat it in ``http.allowed_hosts``.
    """
    if settings.auth.oauth is None:
        return [], []
    parts = urlsplit(settings.auth.oauth.resource_url)
    return [parts.netloc], [f"{parts.scheme}://{parts.netloc}"]
