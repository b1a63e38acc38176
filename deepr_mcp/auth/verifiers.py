"""Bearer-token verification through the SDK's ``TokenVerifier`` seam.

``token_verifier(settings)`` is the one place that decides which verifiers guard HTTP: the
single ``auth_token`` and ``[[auth.principals]]`` (static tokens, here), and any other verifier
(an OAuth 2.1 resource server) is added to the list it builds. ``None`` means no token is
configured: loopback HTTP then serves the local principal as before.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from mcp.server.auth.provider import AccessToken, TokenVerifier

from deepr_mcp.auth.jwt_verifier import JwtVerifier
from deepr_mcp.auth.principals import OWNER_NAME, SCOPES
from deepr_mcp.config import Settings
from deepr_mcp.errors import InvalidInput

__all__ = ["CompositeTokenVerifier", "StaticToken", "StaticTokenVerifier", "token_verifier"]

STATIC_CLIENT_ID = "deepr-static-token"


def sha256_hex(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class StaticToken:
    """One configured token, kept only as its SHA-256, and the principal it stands for."""

    def __init__(self, name: str, digest: str, scopes: Sequence[str]) -> None:
        self.name = name
        self.digest = bytes.fromhex(digest)
        self.scopes = [s for s in SCOPES if s in scopes]


class StaticTokenVerifier:
    """Tokens from the configuration, compared in constant time.

    The presented token is hashed and every configured digest is compared with
    ``hmac.compare_digest`` (all of them, no early exit), so neither the match nor its position
    shows in the timing; plain tokens and ``token_sha256`` entries are checked the same way.
    """

    def __init__(self, tokens: Sequence[StaticToken]) -> None:
        self.tokens = list(tokens)

    async def verify_token(self, token: str) -> AccessToken | None:
        if not token or not token.strip():
            return None
        presented = hashlib.sha256(token.encode("utf-8", errors="surrogatepass")).digest()
        found: StaticToken | None = None
        for entry in self.tokens:
            if hmac.compare_digest(presented, entry.digest) and found is None:
                found = entry
        if found is None:
            return None
        return AccessToken(token=token, client_id=STATIC_CLIENT_ID, subject=found.name, scopes=list(found.scopes))


class CompositeTokenVerifier:
    """Tries each verifier in order; the first that accepts the token wins."""

    def __init__(self, verifiers: Sequence[TokenVerifier]) -> None:
        self.verifiers = list(verifiers)

    async def verify_token(self, token: str) -> AccessToken | None:
        for verifier in self.verifiers:
            result = await verifier.verify_token(token)
            if result is not None:
                return result
        return None


def static_tokens(settings: Settings) -> list[StaticToken]:
    tokens = []
    if settings.auth_token is not None:
        tokens.append(StaticToken(OWNER_NAME, sha256_hex(settings.auth_token.get_secret_value()), SCOPES))
    for entry in settings.auth.principals:
        digest = entry.token_sha256 or sha256_hex(entry.token.get_secret_value())  # type: ignore[union-attr]
        tokens.append(StaticToken(entry.name, digest, entry.scopes))
    return tokens


def token_verifier(settings: Settings) -> TokenVerifier | None:
    """Every configured way to verify a bearer token, tried in order; ``None`` if there is none."""
    verifiers: list[TokenVerifier] = []
    tokens = static_tokens(settings)
    names = {t.digest: t.name for t in tokens}
    if len(names) < len(tokens):
        raise InvalidInput("two principals (or a principal and auth_token) share one token; give each its own")
    if tokens:
        verifiers.append(StaticTokenVerifier(tokens))
    if settings.auth.oauth is not None:  # OAuth 2.1 resource server: JWTs after the static tokens
        verifiers.append(JwtVerifier(settings.auth.oauth))
    if not verifiers:
        return None
    return verifiers[0] if len(verifiers) == 1 else CompositeTokenVerifier(verifiers)
