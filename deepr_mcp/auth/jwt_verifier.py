"""JWT access tokens from an external authorization server, as the SDK's ``TokenVerifier``.

A token is accepted only if its signature verifies under a key from the issuer's JWKS with an
algorithm the settings allow and the key's type fits, and its ``exp``, ``iss`` and ``aud`` (this
server's resource URL) hold. Everything else answers ``None``, which the SDK's bearer middleware
turns into 401 ``invalid_token``; the reason goes to the log, never to the caller.
"""

from __future__ import annotations

import logging
from typing import Any

import jwt
from mcp.server.auth.provider import AccessToken

from deepr_mcp.auth.jwks import JwksCache, JwksUnavailable
from deepr_mcp.auth.principals import oauth_name
from deepr_mcp.config.auth import OAuthSettings

logger = logging.getLogger(__name__)

MAX_TOKEN_CHARS = 16_384
ALGORITHMS_BY_KEY_TYPE = {
    "RSA": {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"},
    "EC": {"ES256", "ES384", "ES512"},
    "OKP": {"EdDSA"},
}


class TokenRefused(Exception):
    """Why one token was not accepted (logged, not shown to the caller)."""


def scopes_of(claims: dict[str, Any]) -> list[str]:
    """RFC 9068/8693 ``scope`` (space-separated string), or the ``scp`` list some issuers send."""
    raw = claims.get("scope", claims.get("scp", ""))
    if isinstance(raw, str):
        return raw.split()
    if isinstance(raw, list):
        return [s for s in raw if isinstance(s, str)]
    return []


class JwtVerifier:
    """Verifies JWT access tokens against the issuer's JWKS; see the module docstring."""

    def __init__(self, settings: OAuthSettings, keys: JwksCache | None = None) -> None:
        self.settings = settings
        self.keys = keys or JwksCache(
            settings.jwks_url,
            cache_s=settings.jwks_cache_s,
            refresh_min_interval_s=settings.jwks_refresh_min_interval_s,
            timeout_s=settings.jwks_timeout_s,
        )
        audience = settings.audience or settings.resource_url
        # A trailing slash is spelling, not a different resource (as the SDK compares resource URLs).
        self._audiences = sorted({audience, audience.rstrip("/"), audience.rstrip("/") + "/"})

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's ``AccessToken``, or ``None`` (logged with the reason) if it is not acceptable."""
        try:
            return await self._verify(token)
        except TokenRefused as exc:
            logger.info("bearer JWT refused: %s", exc)
        except JwksUnavailable as exc:
            logger.warning("bearer JWT refused: no signing keys to check it with (%s)", exc)
        except Exception as exc:  # a token is caller input: whatever it holds is a 401, never a 500
            logger.warning("bearer JWT refused: unexpected %s: %s", type(exc).__name__, exc)
        return None

    async def _verify(self, token: str) -> AccessToken:
        if len(token) > MAX_TOKEN_CHARS:
            raise TokenRefused(f"longer than {MAX_TOKEN_CHARS} characters")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as exc:
            raise TokenRefused(f"not a JWT ({exc})") from None
        alg, kid = header.get("alg"), header.get("kid")
        if alg not in self.settings.algorithms:
            raise TokenRefused(f"algorithm {alg!r} is not one of {self.settings.algorithms}")
        if kid is not None and not isinstance(kid, str):
            raise TokenRefused("kid is not a string")
        key = await self.keys.key(kid)
        if key is None:
            raise TokenRefused(f"no key {kid!r} in the issuer's JWKS" if kid else "no kid, and the JWKS has several")
        if alg not in ALGORITHMS_BY_KEY_TYPE.get(key.key_type, set()) or key.alg not in (None, alg):
            raise TokenRefused(f"algorithm {alg!r} does not fit key {key.kid!r} ({key.key_type}, alg {key.alg})")
        try:
            claims = jwt.decode(
                token,
                key.key,
                algorithms=[alg],
                audience=self._audiences,
                issuer=self.settings.issuer,
                leeway=self.settings.leeway_s,
                options={"require": ["exp", "iss", "aud"], "strict_aud": False},
            )
        except jwt.PyJWTError as exc:
            raise TokenRefused(f"{type(exc).__name__}: {exc}") from None
        return self._access_token(token, claims)

    def _access_token(self, token: str, claims: dict[str, Any]) -> AccessToken:
        subject = claims.get("sub")
        client_id = claims.get("azp") or claims.get("client_id") or subject
        if not isinstance(client_id, str) or not client_id or (subject is not None and not isinstance(subject, str)):
            raise TokenRefused("no usable sub, azp or client_id claim (a string) names the caller")
        # Issuer-qualified, so no claim value can name a configured principal (see oauth_name).
        issuer = self.settings.issuer
        client_id = oauth_name(issuer, subject=None, client_id=client_id)
        subject = oauth_name(issuer, subject=subject, client_id=None) if subject else None
        aud = claims["aud"]
        resource = next((a for a in ([aud] if isinstance(aud, str) else aud) if a in self._audiences), None)
        exp = claims["exp"]
        return AccessToken(
            token=token,
            client_id=client_id,
            subject=subject,
            scopes=scopes_of(claims),
            expires_at=int(exp) if isinstance(exp, int | float) else None,
            resource=resource,
            claims=claims,
        )
