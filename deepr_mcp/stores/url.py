"""``store.url``: which URLs name a shared store, and how to show one without its password.

Kept apart from the client so validating settings never imports the redis package.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit


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
