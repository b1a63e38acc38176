"""Principals, the token-to-principal mapping, and where a handler finds who is calling."""

from __future__ import annotations

from types import SimpleNamespace

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.authentication import UnauthenticatedUser

from deepr_mcp.auth.principals import ANONYMOUS, LOCAL, SCOPES, Principal, principal_from_access_token, principal_of


def token(**fields: object) -> AccessToken:
    return AccessToken(**{"token": "t", "client_id": "client-1", "scopes": [], **fields})  # type: ignore[arg-type]


def test_subject_names_the_principal_else_the_client_id() -> None:
    assert principal_from_access_token(token(subject="alice")).name == "alice"
    assert principal_from_access_token(token()).name == "client-1"


def test_only_the_four_known_scopes_are_kept() -> None:
    found = principal_from_access_token(token(scopes=["read", "approve", "write", "admin:all", "ADMIN", ""]))
    assert found.scopes == frozenset({"read", "approve"})


def test_scopes_are_independent_and_admin_sees_everything() -> None:
    admin = Principal(name="root", scopes=frozenset({"admin"}))
    assert not admin.has("read") and not admin.has("research") and not admin.has("approve")
    assert admin.can_see("someone-else")
    bob = Principal(name="bob", scopes=frozenset({"read"}))
    assert bob.can_see("bob") and bob.can_see("alice", ["bob"]) and bob.can_see("alice", ["*"])
    assert not bob.can_see("alice") and not bob.can_see("alice", ["bobby", "alice"])


def test_who_is_calling_on_each_transport() -> None:
    assert principal_of(SimpleNamespace(request=None)) == LOCAL  # stdio, in-process
    assert principal_of(SimpleNamespace(request=SimpleNamespace(scope={"type": "http"}))) == LOCAL  # no token set
    user = AuthenticatedUser(token(subject="carol", scopes=["read"]))
    assert principal_of(SimpleNamespace(request=SimpleNamespace(scope={"user": user}))) == Principal(
        name="carol", scopes=frozenset({"read"})
    )
    # Auth configured but no user on the request: no scopes at all, never the local principal.
    assert principal_of(SimpleNamespace(request=SimpleNamespace(scope={"user": UnauthenticatedUser()}))) == ANONYMOUS
    assert LOCAL.scopes == frozenset(SCOPES)
