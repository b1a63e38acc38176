"""The ``[auth]`` section: who may call the server over HTTP (static-token principals, OAuth 2.1 JWTs).

``[auth.oauth]`` makes the server an OAuth 2.1 resource server: it accepts JWT access tokens
that an external authorization server signed, checked against that server's JWKS. It is
optional; without it the static ``auth_token`` (or nothing, on loopback) applies.
"""

from __future__ import annotations

from typing import Any, Literal, get_args
from urllib.parse import urlsplit

from pydantic import AnyHttpUrl, BaseModel, Field, SecretStr, ValidationInfo, field_validator, model_validator

from deepr_mcp.hosts import is_loopback_host

Scope = Literal["read", "research", "approve", "admin"]
SCOPES: tuple[Scope, ...] = get_args(Scope)
"""The scopes deepr-mcp understands; other scopes of a token are ignored (auth/principals.py: what each allows)."""

SigningAlgorithm = Literal["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
"""Asymmetric algorithms only: ``none`` and the HMAC family (``HS*``) can never be configured, so a
token signed with the JWKS's public key used as an HMAC secret has no algorithm to verify under."""


def _http_url(value: str, field: str) -> str:
    try:
        AnyHttpUrl(value)
    except ValueError:
        raise ValueError(f"{field} must be an http(s) URL, got {value!r}") from None
    return value


class OAuthSettings(BaseModel):
    """An external authorization server whose JWT access tokens this server accepts."""

    issuer: str = Field(description="The tokens' `iss`, compared exactly; also advertised in the metadata")
    jwks_url: str = Field(description="Where the issuer publishes its signing keys (https, or http on loopback)")
    resource_url: str = Field(description="This server's public URL, e.g. https://deepr.example.com/mcp")
    audience: str | None = Field(None, description="The `aud` tokens must carry; default: resource_url")
    required_scopes: list[str] = Field(default_factory=list, description="Scopes every request needs")
    algorithms: list[SigningAlgorithm] = Field(default_factory=lambda: ["RS256", "ES256"], min_length=1)
    leeway_s: float = Field(
        30.0, ge=0, le=300, description="Clock skew allowed on nbf/iat (exp is strict: the SDK checks it again)"
    )
    jwks_cache_s: float = Field(300.0, gt=0, le=86_400, description="How long fetched keys are trusted")
    jwks_refresh_min_interval_s: float = Field(
        30.0, ge=0, le=3600, description="An unknown `kid` refetches the JWKS at most this often"
    )
    jwks_timeout_s: float = Field(5.0, gt=0, le=60, description="Timeout of one JWKS fetch")

    @field_validator("resource_url", "issuer")
    @classmethod
    def _url(cls, value: str, info: ValidationInfo) -> str:
        return _http_url(value, info.field_name or "url")

    @field_validator("jwks_url")
    @classmethod
    def _jwks_url(cls, value: str) -> str:
        _http_url(value, "jwks_url")
        parts = urlsplit(value)
        if parts.scheme != "https" and not is_loopback_host(parts.hostname or ""):
            raise ValueError(f"jwks_url must use https (plain http only on loopback), got {value!r}")
        return value

    @field_validator("required_scopes")
    @classmethod
    def _known_scopes(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - set(SCOPES))
        if unknown:
            raise ValueError(f"unknown scopes {unknown}; allowed: {list(SCOPES)}")
        return value

    @model_validator(mode="after")
    def _default_audience(self) -> OAuthSettings:
        if self.audience is None:
            self.audience = self.resource_url
        return self


MIN_TOKEN_CHARS = 16


def token_or_none(value: Any) -> Any:
    """A blank or whitespace-only token is no token (``DEEPR_AUTH_TOKEN="$UNSET_VAR"`` must not open the door)."""
    raw = value.get_secret_value() if isinstance(value, SecretStr) else value
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if isinstance(raw, str) and len(raw.strip()) < MIN_TOKEN_CHARS:
        raise ValueError(
            f"a token must be at least {MIN_TOKEN_CHARS} characters (got {len(raw.strip())}); "
            "generate one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    return raw.strip() if isinstance(raw, str) else value


class PrincipalSettings(BaseModel):
    """One ``[[auth.principals]]`` entry: who a bearer token stands for and what it may do."""

    model_config = {"extra": "forbid"}
    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.@-]+$")
    token: SecretStr | None = None
    token_sha256: str | None = Field(None, description="Hex SHA-256 of the token, instead of the token itself")
    scopes: list[Scope] = Field(default_factory=lambda: ["read"])

    _token = field_validator("token", mode="before")(classmethod(lambda cls, v: token_or_none(v)))

    @field_validator("token_sha256")
    @classmethod
    def _hex(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().lower()
        if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
            raise ValueError("token_sha256 must be 64 hex digits (sha256sum of the token)")
        return value

    @model_validator(mode="after")
    def _one_secret(self) -> PrincipalSettings:
        if (self.token is None) == (self.token_sha256 is None):
            raise ValueError(f"principal {self.name!r} needs exactly one of token or token_sha256")
        return self


class AuthSettings(BaseModel):
    """Who may call the server over HTTP: static-token principals and, optionally, OAuth 2.1 JWTs."""

    principals: list[PrincipalSettings] = Field(default_factory=list)
    oauth: OAuthSettings | None = Field(None, description="Accept JWTs from an OAuth 2.1 authorization server")

    @model_validator(mode="after")
    def _unique(self) -> AuthSettings:
        names = [p.name for p in self.principals]
        dupes = sorted({n for n in names if names.count(n) > 1} | ({"local", "owner"} & set(names)))
        if dupes:
            raise ValueError(f"principal names must be unique and not 'local' or 'owner' (reserved): {dupes}")
        return self
