"""The authorization server's signing keys (its JWKS), fetched over HTTP and cached.

Not ``jwt.PyJWKClient``: it fetches with blocking ``urllib`` inside ``get_signing_key``, which
would stall the event loop (every request) for as long as the issuer takes to answer. Here the
fetch is aiohttp with a timeout and a size cap, one fetch at a time, and refetches are bounded:
the keys are trusted for ``cache_s``; a token naming an unknown ``kid`` (a key rotation) refetches
at most once per ``refresh_min_interval_s``, so random ``kid`` values cannot turn the server into
a JWKS flooder; a failed fetch is retried no sooner than ``failure_backoff_s``.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import anyio
from jwt import PyJWK
from jwt.exceptions import PyJWTError

logger = logging.getLogger(__name__)

MAX_JWKS_BYTES = 512 * 1024
SIGNING_KEY_TYPES = ("RSA", "EC", "OKP")
"""Symmetric (``oct``) keys are never taken from a JWKS: they would make HMAC tokens verifiable."""


class JwksUnavailable(Exception):
    """The key set could not be fetched or read; the message says why."""


@dataclass(frozen=True)
class SigningKey:
    """One public key of the set, with the algorithm the set pins it to (``alg``), if any."""

    kid: str
    key_type: str
    alg: str | None
    key: Any


def parse_jwks(data: Any) -> dict[str, SigningKey]:
    """The usable signing keys of a JWKS document, by ``kid`` (``""`` for a key without one)."""
    if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
        raise JwksUnavailable('not a JWK Set: expected a JSON object with a "keys" list')
    keys: dict[str, SigningKey] = {}
    for entry in data["keys"]:
        if not isinstance(entry, dict) or entry.get("kty") not in SIGNING_KEY_TYPES or entry.get("use", "sig") != "sig":
            continue
        try:
            key = PyJWK(entry)
        except PyJWTError:
            continue  # an algorithm or curve this library does not know: not ours to use
        kid, alg = str(entry.get("kid", "")), entry.get("alg")
        keys.setdefault(kid, SigningKey(kid, entry["kty"], alg if isinstance(alg, str) else None, key.key))
    if not keys:
        raise JwksUnavailable("the JWK Set holds no usable signing key (RSA, EC or OKP with use=sig)")
    return keys


class JwksCache:
    """``await cache.key(kid)``: the issuer's key for ``kid``, refetching the set when it must."""

    def __init__(
        self,
        url: str,
        *,
        cache_s: float = 300.0,
        refresh_min_interval_s: float = 30.0,
        timeout_s: float = 5.0,
        failure_backoff_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url = url
        self._cache_s = cache_s
        self._refresh_min_interval_s = refresh_min_interval_s
        self._timeout_s = timeout_s
        self._failure_backoff_s = failure_backoff_s
        self._clock = clock
        self._keys: dict[str, SigningKey] = {}
        self._fetched_at: float | None = None
        self._forced_at: float | None = None
        self._failed_at: float | None = None
        self._last_error = "never fetched"
        self._lock = anyio.Lock()

    async def key(self, kid: str | None) -> SigningKey | None:
        """The key for ``kid`` (or the only key, when the token names none); ``None`` if unknown.

        Raises ``JwksUnavailable`` when no key set could be had at all. A known key of a fresh set
        is answered without the lock, so a fetch in progress (an unknown ``kid``) delays no one else.
        """
        if not self._stale() and (found := self._lookup(kid)) is not None:
            return found
        async with self._lock:
            just_fetched = self._stale()
            if just_fetched:
                await self._refresh()
            found = self._lookup(kid)
            if found is None and kid is not None and not just_fetched and self._may_force():
                self._forced_at = self._clock()
                await self._refresh()
                found = self._lookup(kid)
            if found is None and not self._keys:
                raise JwksUnavailable(self._last_error)
            return found

    def _lookup(self, kid: str | None) -> SigningKey | None:
        if kid is not None:
            return self._keys.get(kid)
        return next(iter(self._keys.values())) if len(self._keys) == 1 else None

    def _stale(self) -> bool:
        now = self._clock()
        if self._failed_at is not None and now - self._failed_at < self._failure_backoff_s:
            return False
        return self._fetched_at is None or now - self._fetched_at >= self._cache_s

    def _may_force(self) -> bool:
        now = self._clock()
        if self._failed_at is not None and now - self._failed_at < self._failure_backoff_s:
            return False
        return self._forced_at is None or now - self._forced_at >= self._refresh_min_interval_s

    async def _refresh(self) -> None:
        """Fetch the set; on failure keep the keys we had (log why) so a blip refuses nobody."""
        try:
            keys = parse_jwks(await self._download())
        except JwksUnavailable as exc:
            self._failed_at = self._clock()
            self._last_error = f"JWKS {self.url} unavailable: {exc}"
            kept = f"; still using the {len(self._keys)} keys fetched before" if self._keys else ""
            logger.warning("%s%s", self._last_error, kept)
            return
        self._keys, self._fetched_at, self._failed_at = keys, self._clock(), None
        logger.info("JWKS %s: %d signing keys (%s)", self.url, len(keys), ", ".join(sorted(keys)) or "no kid")

    async def _download(self) -> Any:
        timeout = aiohttp.ClientTimeout(total=self._timeout_s)
        try:
            async with (
                aiohttp.ClientSession(timeout=timeout) as session,
                session.get(self.url, headers={"Accept": "application/json"}) as response,
            ):
                if response.status != 200:
                    raise JwksUnavailable(f"HTTP {response.status}")
                body = b""
                async for chunk in response.content.iter_chunked(64 * 1024):
                    body += chunk
                    if len(body) > MAX_JWKS_BYTES:
                        break
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            raise JwksUnavailable(f"{type(exc).__name__}: {exc}".rstrip(": ")) from None
        if len(body) > MAX_JWKS_BYTES:
            raise JwksUnavailable(f"response larger than {MAX_JWKS_BYTES} bytes")
        try:
            return json.loads(body)
        except ValueError as exc:
            raise JwksUnavailable(f"response is not JSON ({exc})") from None
