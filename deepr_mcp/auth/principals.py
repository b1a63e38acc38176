"""Principals: a name and a set of scopes, the unit every ownership and permission check uses.

Scopes are independent; none implies another:

- ``read``: list, read and follow (status, resources, subscriptions, ``campaign_wait``, tasks);
- ``research``: start and steer campaigns (cancel, pause, resume, budget, share), add to the corpus,
  write sandboxes, create experts;
- ``approve``: budget decisions (``budget_decide``, elicitation answers);
- ``admin``: delete campaigns and experts, remove corpus documents, upstream control; and an admin
  sees every principal's records (within the scopes it holds), so an operator can clean up.

Who is who: stdio and HTTP without any configured token are the ``local`` principal with every
scope (what a single user had before principals existed); the single ``auth_token`` is the
principal ``owner`` with every scope; ``[[auth.principals]]`` and any other token verifier map to
their own names through ``principal_from_access_token``.
"""

from __future__ import annotations

from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from pydantic import BaseModel, ConfigDict

from deepr_mcp.config.auth import SCOPES, Scope

__all__ = [
    "ANONYMOUS",
    "LOCAL",
    "LOCAL_NAME",
    "OWNER_NAME",
    "SCOPES",
    "SHARE_ALL",
    "Principal",
    "Scope",
    "oauth_name",
    "principal_from_access_token",
    "principal_of",
]

LOCAL_NAME = "local"
OWNER_NAME = "owner"
SHARE_ALL = "*"
"""In a record's ``shared_with``: every principal may see it (``campaign_share(..., "all")``)."""


class Principal(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    scopes: frozenset[Scope]

    def has(self, scope: str) -> bool:
        return scope in self.scopes

    def can_see(self, owner: str, shared_with: list[str] | tuple[str, ...] = ()) -> bool:
        """Its own records, records shared with it or with everyone, and everything for an admin."""
        return owner == self.name or self.has("admin") or self.name in shared_with or SHARE_ALL in shared_with

    def describe(self) -> str:
        return f"principal {self.name!r} (scopes: {', '.join(s for s in SCOPES if s in self.scopes) or 'none'})"


LOCAL = Principal(name=LOCAL_NAME, scopes=frozenset(SCOPES))
ANONYMOUS = Principal(name="anonymous", scopes=frozenset())
"""Never reached through the routes (they require a token when any is configured); the fallback."""


def oauth_name(issuer: str, *, subject: str | None, client_id: str | None) -> str:
    """The principal name of an OAuth token: issuer-qualified, so it can never be a configured one.

    ``{issuer}#sub={sub}`` for a token with a subject (a user), else ``{issuer}#client={azp or client_id}``
    (a client acting for itself). The issuer is the configured ``auth.oauth.issuer`` the token was
    checked against, an http(s) URL, so the name always holds ``:`` and ``#``, which static principal
    names (``[A-Za-z0-9_.@-]``, ``local``, ``owner``) never do: a JWT whose ``sub``, ``azp`` or
    ``client_id`` is ``local`` is not the local principal. A user and a client with the same id are
    two principals too.
    """
    return f"{issuer}#sub={subject}" if subject else f"{issuer}#client={client_id}"


def principal_from_access_token(token: AccessToken) -> Principal:
    """The one mapping from a verified token to a principal (every verifier, static or OAuth).

    name = the token's ``subject`` or else its ``client_id`` (a static token: the configured name; a
    JWT: its issuer-qualified ``oauth_name``, set by the verifier); scopes = the token's scopes that
    are one of the four known names (others are ignored, never an error).
    """
    name = token.subject or token.client_id
    return Principal(name=name, scopes=frozenset(s for s in token.scopes if s in SCOPES))  # type: ignore[misc]


def principal_of(ctx: Any) -> Principal:
    """Who sent this request: the one place a lowlevel handler learns it.

    The SDK's HTTP transports (streamable HTTP in both eras, legacy SSE) attach the starlette
    ``Request`` of each message as ``ctx.request``; starlette's ``AuthenticationMiddleware`` with
    the SDK's ``BearerAuthBackend`` put the verified ``AuthenticatedUser`` in its scope as
    ``user``. (The SDK's ``auth_context_var`` is not used: a stateful session's handlers run in
    the session's task, not the HTTP request's, so the contextvar is not set there.) No request
    (stdio, in-process) or no authenticated user (HTTP with no token configured, where
    ``RequireAuthMiddleware`` is not installed) is the local principal.
    """
    request = getattr(ctx, "request", None)
    scope = getattr(request, "scope", None)
    user = scope.get("user") if isinstance(scope, dict) else None
    if isinstance(user, AuthenticatedUser):
        return principal_from_access_token(user.access_token)
    if isinstance(scope, dict) and "user" in scope:
        return ANONYMOUS  # auth is configured but this request carries none: fail closed
    return LOCAL
