"""The JWKS cache: what it takes from a key set, and how often it goes back to the issuer."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest

from deepr_mcp.auth.jwks import JwksCache, JwksUnavailable, parse_jwks
from tests.auth.issuer import Issuer, oauth_issuer


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def rsa_jwk() -> dict:
    issuer = Issuer()
    issuer.add_key("k")
    return issuer.jwk("k")


@pytest.mark.parametrize(
    ("document", "why"),
    [
        ([], "not a JWK Set"),
        ({"keys": "x"}, "not a JWK Set"),
        ({"keys": []}, "no usable signing key"),
        ({"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "hmac"}]}, "no usable signing key"),
        ({"keys": [{**rsa_jwk(), "use": "enc"}]}, "no usable signing key"),
        ({"keys": [{"kty": "RSA", "n": "!!", "e": "AQAB"}, 7, None]}, "no usable signing key"),
        ({"keys": [{"kty": "EC", "crv": "P-999", "x": "AA", "y": "AA"}]}, "no usable signing key"),
    ],
)
def test_a_set_without_usable_signing_keys_is_refused(document: object, why: str) -> None:
    with pytest.raises(JwksUnavailable, match=why):
        parse_jwks(document)


def test_symmetric_and_encryption_keys_are_skipped_beside_good_ones() -> None:
    good = rsa_jwk()
    keys = parse_jwks({"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "k"}, {**good, "use": "enc"}, good]})
    assert list(keys) == ["k"] and keys["k"].key_type == "RSA"


async def test_keys_are_cached_then_refetched_after_cache_s() -> None:
    clock = Clock()
    async with oauth_issuer() as issuer:
        cache = JwksCache(issuer.jwks_url, cache_s=300, clock=clock)
        for _ in range(3):
            assert (await cache.key("rsa-1")) is not None
        assert issuer.fetches == 1
        clock.now += 301
        assert (await cache.key("ec-1")) is not None
        assert issuer.fetches == 2


async def test_concurrent_misses_make_one_fetch() -> None:
    async with oauth_issuer() as issuer:
        cache = JwksCache(issuer.jwks_url)
        async with anyio.create_task_group() as tg:
            for _ in range(20):
                tg.start_soon(cache.key, "rsa-1")
        assert issuer.fetches == 1


async def test_unknown_kids_refetch_at_most_once_per_interval() -> None:
    clock = Clock()
    async with oauth_issuer() as issuer:
        cache = JwksCache(issuer.jwks_url, refresh_min_interval_s=30, clock=clock)
        await cache.key("rsa-1")
        for n in range(50):
            assert await cache.key(f"random-{n}") is None
        assert issuer.fetches == 2
        clock.now += 31
        assert await cache.key("random-again") is None
        assert issuer.fetches == 3


async def test_a_failed_refresh_keeps_the_old_keys_and_backs_off(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    async with oauth_issuer() as issuer:
        cache = JwksCache(issuer.jwks_url, cache_s=60, failure_backoff_s=5, clock=clock)
        await cache.key("rsa-1")
        issuer.down = True
        clock.now += 61
        assert await cache.key("rsa-1") is not None  # stale keys still verify during an outage
        assert "unavailable: HTTP 503; still using the 2 keys fetched before" in caplog.text
        for _ in range(10):
            await cache.key("rsa-1")
        assert issuer.fetches == 2  # no hammering while it is down
        issuer.down = False
        clock.now += 6
        await cache.key("rsa-1")
        assert issuer.fetches == 3


async def test_no_keys_at_all_raises_with_the_reason() -> None:
    clock = Clock()
    async with oauth_issuer(down=True) as issuer:
        cache = JwksCache(issuer.jwks_url, failure_backoff_s=5, clock=clock)
        for _ in range(3):
            with pytest.raises(JwksUnavailable, match="HTTP 503"):
                await cache.key("rsa-1")
        assert issuer.fetches == 1


async def test_a_huge_or_non_json_answer_is_refused() -> None:
    from aiohttp import web

    from deepr_mcp.auth import jwks

    async def serve(body: bytes) -> str:
        app = web.Application()
        app.router.add_get("/j", lambda _: web.Response(body=body))
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        return f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/j"  # type: ignore[union-attr]

    runners: list[web.AppRunner] = []
    try:
        for body, why in [(b"{" * (jwks.MAX_JWKS_BYTES + 10), "larger than"), (b"<html>", "not JSON")]:
            with pytest.raises(JwksUnavailable, match=why):
                await JwksCache(await serve(body)).key("x")
    finally:
        for runner in runners:
            await runner.cleanup()


async def test_a_jwks_that_never_answers_times_out() -> None:
    from aiohttp import web

    never = anyio.Event()

    async def hang(_: web.Request) -> web.Response:
        await never.wait()
        return web.Response()

    app = web.Application()
    app.router.add_get("/j", hang)
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/j"  # type: ignore[union-attr]
        with pytest.raises(JwksUnavailable, match="TimeoutError"):
            await JwksCache(url, timeout_s=0.2).key("x")
    finally:
        never.set()
        await runner.cleanup()


async def test_a_slow_refetch_for_an_unknown_kid_delays_no_known_key() -> None:
    async with oauth_issuer() as issuer:
        cache = JwksCache(issuer.jwks_url)
        await cache.key("rsa-1")
        gate = anyio.Event()

        async def slow_download() -> object:
            await gate.wait()
            return {"keys": [issuer.jwk("rsa-1")]}

        cache._download = slow_download  # type: ignore[method-assign]
        with anyio.fail_after(10):  # a hang guard, not a timing assertion
            async with anyio.create_task_group() as tg:
                tg.start_soon(cache.key, "unknown")  # takes the lock and waits on the gate
                while not cache._lock.locked():
                    await anyio.lowlevel.checkpoint()
                assert (await cache.key("rsa-1")) is not None and (await cache.key("ec-1")) is not None
                gate.set()
