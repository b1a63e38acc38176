"""Who is calling: principals with scopes, how a bearer token becomes one, and what each may touch."""

from __future__ import annotations

from deepr_mcp.auth.principals import LOCAL, SCOPES, Principal, principal_from_access_token, principal_of

__all__ = ["LOCAL", "SCOPES", "Principal", "principal_from_access_token", "principal_of"]
