"""RFC 9728 protected-resource metadata: how a client learns which authorization server to ask.

Served with the SDK's own route at ``/.well-known/oauth-protected-resource`` plus the resource
URL's path (RFC 9728 §3.1, e.g. ``.../oauth-protected-resource/mcp``), and at the bare well-known
path too, where clients that do not insert the path look.
"""

from __future__ import annotations

from typing import cast

from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from pydantic import AnyHttpUrl
from starlette.routing import Route

from deepr_mcp.config.auth import SCOPES, OAuthSettings

WELL_KNOWN_PATH = "/.well-known/oauth-protected-resource"


def metadata_url(settings: OAuthSettings) -> AnyHttpUrl:
    """The metadata's URL, as a 401's ``WWW-Authenticate: Bearer resource_metadata="..."`` names it."""
    return build_resource_metadata_url(AnyHttpUrl(settings.resource_url))


def metadata_routes(settings: OAuthSettings) -> list[Route]:
    """GET (and CORS OPTIONS) routes answering the RFC 9728 JSON document."""
    # Strings, not AnyHttpUrl(...): the metadata model keeps them as written, and RFC 8414 compares
    # issuers exactly, so "https://issuer.example" must not come out as "https://issuer.example/".
    routes = create_protected_resource_routes(
        resource_url=cast(AnyHttpUrl, settings.resource_url),
        authorization_servers=[cast(AnyHttpUrl, settings.issuer)],
        scopes_supported=list(SCOPES),
        resource_name="deepr-mcp",
    )
    if all(route.path != WELL_KNOWN_PATH for route in routes):
        first = routes[0]
        routes.append(Route(WELL_KNOWN_PATH, endpoint=first.endpoint, methods=sorted(first.methods or ["GET"])))
    return routes
