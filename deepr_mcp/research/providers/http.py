"""What both HTTP providers share: POST with timeouts, retries with backoff, clear errors.

Retries cover 429, 5xx (and Anthropic's 529) and connection errors/timeouts, with exponential
backoff plus jitter, honouring ``Retry-After``. Every failure becomes a ``ProviderError`` that
names the provider and what went wrong; the API key never appears in a message.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import aiohttp

from deepr_mcp.errors import ProviderError

RETRYABLE = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
MAX_RETRY_AFTER_S = 30.0


def unreachable(url: str, exc: BaseException, attempts: int) -> str:
    """Names the URL that did not answer: a wrong base URL or a stopped server is the user's to fix."""
    why = "timed out" if isinstance(exc, TimeoutError) else (str(exc) or type(exc).__name__)
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    return f"provider unreachable: {url} ({why}{tries}); check the provider's base URL and that it is running"


class HttpJson:
    def __init__(
        self,
        provider: str,
        session: aiohttp.ClientSession,
        *,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        backoff_base_s: float = 0.5,
        key_env: str = "",
    ) -> None:
        self.provider = provider
        self.session = session
        self.timeout = aiohttp.ClientTimeout(total=timeout_s)
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.key_env = key_env

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        if retry_after is not None:
            try:
                return min(MAX_RETRY_AFTER_S, max(0.0, float(retry_after)))
            except ValueError:
                pass
        return self.backoff_base_s * (2**attempt) * (0.5 + random.random() / 2)

    async def post(self, url: str, payload: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """POST JSON and return the decoded JSON object, retrying what is worth retrying."""
        for attempt in range(self.max_retries + 1):
            last = attempt == self.max_retries
            try:
                async with self.session.post(url, json=payload, headers=headers, timeout=self.timeout) as resp:
                    body = await resp.read()
                    if resp.status in RETRYABLE and not last:
                        await asyncio.sleep(self._delay(attempt, resp.headers.get("Retry-After")))
                        continue
                    self._raise_for_status(resp.status, body)
                    return self._decode(body)
            except (aiohttp.ClientConnectionError, TimeoutError) as exc:
                if last:
                    why = unreachable(url, exc, self.max_retries + 1)
                    raise ProviderError(self.provider, why, retryable=True) from None
                await asyncio.sleep(self._delay(attempt, None))
        raise AssertionError("unreachable")  # pragma: no cover

    async def stream(self, url: str, payload: dict[str, Any], headers: dict[str, str]) -> AsyncIterator[dict[str, Any]]:
        """POST and yield each server-sent ``data:`` JSON event (no retry once bytes flowed)."""
        try:
            async with self.session.post(url, json=payload, headers=headers, timeout=self.timeout) as resp:
                if resp.status != 200:
                    self._raise_for_status(resp.status, await resp.read())
                async for raw in resp.content:
                    line = raw.decode("utf-8", errors="replace").strip()
                    if not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]":
                        return
                    yield self._decode(data.encode())
        except (aiohttp.ClientConnectionError, TimeoutError) as exc:
            raise ProviderError(self.provider, unreachable(url, exc, 1), retryable=True) from None

    def _raise_for_status(self, status: int, body: bytes) -> None:
        if status < 400:
            return
        detail = _error_detail(body)
        if status in (401, 403):
            hint = f"; set {self.key_env} to a valid API key" if self.key_env else ""
            raise ProviderError(self.provider, f"authentication failed (HTTP {status}){hint}", status=status)
        raise ProviderError(self.provider, f"HTTP {status}: {detail}", status=status, retryable=status in RETRYABLE)

    def _decode(self, body: bytes) -> dict[str, Any]:
        try:
            value = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ProviderError(self.provider, f"malformed response: not JSON ({body[:80]!r})") from None
        if not isinstance(value, dict):
            raise ProviderError(self.provider, "malformed response: expected a JSON object")
        return value


def _error_detail(body: bytes) -> str:
    try:
        value = json.loads(body)
        error = value.get("error") if isinstance(value, dict) else None
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"][:300]
        if isinstance(error, str):
            return error[:300]
    except (json.JSONDecodeError, UnicodeDecodeError):
        pass
    return body[:200].decode("utf-8", errors="replace") or "no body"
