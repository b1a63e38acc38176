"""The ``[store]`` section: where shared state lives, which URLs name a shared store, and how to show one.

Validating settings never imports the redis package: the Redis engines (``deepr_mcp/redis/``) are
loaded only when ``store.url`` is set.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, SecretStr, field_serializer, field_validator


def redact(url: str) -> str:
    """The URL with any password replaced, for messages and logs."""
    return re.sub(r"(//[^:/@]*:)[^/]*@", r"\1***@", url)


def check_store_url(url: str) -> str:
    """``redis://HOST:PORT/DB`` or ``rediss://`` (TLS); raises ValueError saying what is allowed."""
    allowed = "expected redis://HOST:PORT/DB or rediss://HOST:PORT/DB (password in the URL or DEEPR_STORE_PASSWORD)"
    shown = redact(url)
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"{allowed}; got {shown!r} ({exc})") from None
    if parts.scheme not in ("redis", "rediss"):
        raise ValueError(f"{allowed}; got {shown!r} (scheme {parts.scheme or 'missing'!r})")
    if not parts.hostname:
        raise ValueError(f"{allowed}; got {shown!r} (no host)")
    if port is None:
        raise ValueError(f"{allowed}; got {shown!r} (no port; Redis listens on 6379 by default)")
    db = parts.path.strip("/") or "0"
    if not db.isdigit() or int(db) > 15:
        raise ValueError(f"{allowed}; got {shown!r} (database must be a number 0-15)")
    if parts.query or parts.fragment:
        raise ValueError(f"{allowed}; got {shown!r} (no ?query or #fragment)")
    return url.strip()


class StoreSettings(BaseModel):
    """Where shared state lives: unset = the embedded SQLite files in data_dir (one process)."""

    url: str | None = Field(
        None,
        description="redis://HOST:PORT/DB or rediss://HOST:PORT/DB: every replica with the same URL shares campaigns, "
        "leases (takeover when a replica dies), resource updates and budget questions (password in the URL or "
        "DEEPR_STORE_PASSWORD). Unset: embedded SQLite. Flag: serve --store URL",
    )
    password: SecretStr | None = Field(None, description="The Redis password when the URL holds none")
    request_state_key: SecretStr | None = Field(None, min_length=32, description="Seals requestState (security.md)")
    lease_s: float = Field(
        15.0,
        ge=1,
        le=600,
        description="A replica that stops heartbeating loses its campaigns' leases after this long; another replica "
        "then resumes them from their last saved step",
    )
    catch_up_s: float = Field(
        5.0,
        gt=0,
        le=120,
        description="How long a replica waits to apply the other replicas' sandbox changes already in the shared log "
        "before a read that must see them (sandbox_read/list/extract, campaign_wait saying a campaign ended); past "
        "it (say Redis is slow) it answers from its own copy",
    )

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        return check_store_url(value)

    @field_serializer("url")
    def _hide_password(self, value: str | None) -> str | None:
        """``config show`` prints the URL with its password (if any) as ``***``."""
        if value is None:
            return None
        return redact(value)
