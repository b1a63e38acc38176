"""OAuth resource server over real HTTP: JWTs from a test issuer whose JWKS is served on loopback.

The deepr-mcp HTTP app runs under uvicorn on 127.0.0.1 (in this process, so its log is visible);
the SDK client sends ``Authorization: Bearer <jwt>``. Hostile tokens are sent as raw requests.
"""

from __future__ import annotations

import base64
import hmac
import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import httpx2
import pytest
from cryptography.hazmat.primitives import serialization
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from deepr_mcp.config import Settings
from deepr_mcp.errors import InvalidInput
from deepr_mcp.transports.http import check_bind
from tests.auth.issuer import Issuer, oauth_issuer
from tests.campaigns import QUESTION
from tests.clients import ERAS, structured
from tests.servers import http_server, inprocess_http, inprocess_services

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
KID = "rsa-1"
METADATA_URL = "https://deepr.test/.well-known/oauth-protected-resource/mcp"


def oauth_settings(data_dir: Path, issuer: Issuer, **oauth: Any) -> Settings:
    config = {"issuer": issuer.name, "jwks_url": issuer.jwks_url, "resource_url": issuer.resource, **oauth}
    return Settings(data_dir=data_dir, auth={"oauth": config}, **{"gateway": {"mode": "proxy"}})


@asynccontextmanager
async def oauth_server(settings: Settings) -> AsyncIterator[str]:
    async with inprocess_services(settings) as services, inprocess_http(services) as base:
        yield base


@asynccontextmanager
async def client_with(base: str, token: str, era: str = "legacy") -> AsyncIterator[Client]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http:
        async with Client(streamable_http_client(f"{base}/mcp", http_client=http), mode=ERAS[era]) as client:
            yield client


async def post_initialize(base: str, token: str | None) -> tuple[int, str, dict[str, Any]]:
    headers = {**ACCEPT, **({"Authorization": f"Bearer {token}"} if token is not None else {})}
    async with aiohttp.ClientSession() as http, http.post(f"{base}/mcp", json=INITIALIZE, headers=headers) as resp:
        body = await resp.text()
        return resp.status, resp.headers.get("WWW-Authenticate", ""), json.loads(body) if resp.status >= 400 else {}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forged(issuer: Issuer, alg: str, secret: bytes | None) -> str:
    """A token with a hand-written header: ``alg`` none (no signature) or HMAC with ``secret``."""
    header = {"alg": alg, "kid": "rsa-1", "typ": "JWT"}
    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(issuer.claims()).encode())}"
    signature = b"" if secret is None else hmac.new(secret, signing_input.encode(), "sha256").digest()
    return f"{signing_input}.{b64(signature)}"


def with_header(token: str, header: dict[str, Any]) -> str:
    return ".".join([b64(json.dumps(header).encode()), *token.split(".")[1:]])


def tampered_signature(token: str) -> str:
    head, body, signature = token.split(".")
    raw = bytearray(base64.urlsafe_b64decode(signature + "=="))
    raw[0] ^= 0xFF
    return f"{head}.{body}.{b64(bytes(raw))}"


def stolen_key_token(issuer: Issuer) -> str:
    issuer.add_key("stolen", publish=False)
    return issuer.token("stolen")


def public_pem(issuer: Issuer) -> bytes:
    return (
        issuer.keys["rsa-1"]
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("kid", ["rsa-1", "ec-1"])
async def test_a_valid_token_lists_tools_and_runs_a_call(era: str, kid: str, data_dir: Path) -> None:
    async with oauth_issuer() as issuer, oauth_server(oauth_settings(data_dir, issuer)) as base:
        async with client_with(base, issuer.token(kid, scope="read research")) as client:
            assert [t.name for t in (await client.list_tools()).tools] == ["tool_search", "tool_call"]
            result = await client.call_tool("tool_call", {"name": "server_info", "arguments": {}})
            assert structured(result)["name"] == "deepr-mcp"


async def test_the_tokens_sub_is_the_principal_and_its_scope_the_scopes(data_dir: Path) -> None:
    """alice (read research) owns what she starts; bob (read) neither sees it nor may start one."""
    async with oauth_issuer() as issuer, oauth_server(oauth_settings(data_dir, issuer)) as base:
        async with client_with(base, issuer.token(sub="alice", scope="read research")) as alice:
            started = await alice.call_tool(
                "tool_call", {"name": "campaign_start", "arguments": {"question": QUESTION}}
            )
            cid = structured(started)["campaign_id"]
            status = structured(
                await alice.call_tool("tool_call", {"name": "campaign_status", "arguments": {"campaign_id": cid}})
            )
            assert status["id"] == cid, status
        async with client_with(base, issuer.token(sub="bob", scope="read offline_access")) as bob:
            denied = await bob.call_tool("tool_call", {"name": "campaign_start", "arguments": {"question": QUESTION}})
            assert denied.is_error and f"principal '{issuer.name}#sub=bob' (scopes: read)" in denied.content[0].text
            hidden = await bob.call_tool("tool_call", {"name": "campaign_status", "arguments": {"campaign_id": cid}})
            assert hidden.is_error and f"belongs to principal '{issuer.name}#sub=alice'" in hidden.content[0].text


@pytest.mark.parametrize(
    "claims",
    [{"sub": "local"}, {"sub": "alice"}, {"sub": None, "azp": "alice"}, {"sub": None, "client_id": "local"}],
    ids=["sub=local", "sub=alice", "azp=alice", "client_id=local"],
)
async def test_a_jwt_naming_a_configured_principal_is_not_that_principal(
    claims: dict[str, Any], data_dir: Path
) -> None:
    """Static principals (and local, the stdio user) and OAuth subjects live in different namespaces."""
    from deepr_mcp.jobs.request import campaign_request
    from tests.servers import inprocess_http, inprocess_services

    alice = {"name": "alice", "token": "static-token-of-alice-0123456789", "scopes": ["read", "research"]}
    async with oauth_issuer() as issuer:
        oauth = oauth_settings(data_dir, issuer).auth.oauth
        settings = Settings(data_dir=data_dir, auth={"oauth": oauth.model_dump(), "principals": [alice]})
        async with inprocess_services(settings) as services, inprocess_http(services) as base:
            request = campaign_request({"question": QUESTION})
            started = [(await services.campaigns.start(request, principal="local")).id]  # as stdio starts it
            async with client_with(base, alice["token"]) as static:
                result = await static.call_tool(
                    "tool_call", {"name": "campaign_start", "arguments": {"question": QUESTION}}
                )
                started.append(structured(result)["campaign_id"])
            async with client_with(base, issuer.token(scope="read", **claims)) as borrower:
                listed = await borrower.call_tool("tool_call", {"name": "campaign_list", "arguments": {}})
                assert structured(listed)["campaigns"] == []
                for cid in started:
                    hidden = await borrower.call_tool(
                        "tool_call", {"name": "campaign_status", "arguments": {"campaign_id": cid}}
                    )
                    assert hidden.is_error and "belongs to principal" in hidden.content[0].text, cid


async def test_legacy_sse_needs_the_token_too(data_dir: Path) -> None:
    async with oauth_issuer() as issuer, oauth_server(oauth_settings(data_dir, issuer)) as base:
        async with aiohttp.ClientSession() as http:
            for method, path in [("GET", "/sse"), ("POST", "/messages/?session_id=x")]:
                async with http.request(method, base + path, headers=ACCEPT) as resp:
                    assert resp.status == 401
                    assert f'resource_metadata="{METADATA_URL}"' in resp.headers["WWW-Authenticate"]
        headers = {"Authorization": f"Bearer {issuer.token()}"}
        async with Client(sse_client(f"{base}/sse", headers=headers), mode="legacy") as client:
            result = await client.call_tool("tool_call", {"name": "server_info", "arguments": {}})
            assert structured(result)["name"] == "deepr-mcp"


HOSTILE: dict[str, tuple[Any, str]] = {
    # name: (make the token from the issuer, why the server's log says it was refused)
    "expired": (lambda i: i.token(exp=int(time.time()) - 3600), "ExpiredSignatureError"),
    "wrong issuer": (lambda i: i.token(iss="https://evil.test"), "InvalidIssuerError"),
    "wrong audience": (lambda i: i.token(aud="https://other.test/mcp"), "InvalidAudienceError"),
    "no audience": (lambda i: i.token(aud=None), 'missing the "aud" claim'),
    "no expiry": (lambda i: i.token(exp=None), 'missing the "exp" claim'),
    "not yet valid": (lambda i: i.token(nbf=int(time.time()) + 3600), "ImmatureSignatureError"),
    "bad signature": (lambda i: tampered_signature(i.token()), "InvalidSignatureError"),
    "signed by a key the JWKS lacks, named as rsa-1": (
        lambda i: with_header(
            i.token(i.add_key("stolen", publish=False) and "stolen"), {"alg": "RS256", "kid": "rsa-1"}
        ),
        "InvalidSignatureError",
    ),
    "alg none": (lambda i: forged(i, "none", None), "algorithm 'none' is not one of"),
    "HS256 with the public key (PEM) as secret": (
        lambda i: forged(i, "HS256", public_pem(i)),
        "algorithm 'HS256' is not one of",
    ),
    "HS256 with the JWK JSON as secret": (
        lambda i: forged(i, "HS256", json.dumps(i.jwk("rsa-1")).encode()),
        "algorithm 'HS256' is not one of",
    ),
    "RS256-signed, naming the EC key": (
        lambda i: with_header(i.token("rsa-1"), {"alg": "RS256", "kid": "ec-1"}),
        "does not fit key 'ec-1'",
    ),
    "RS384 (not in algorithms)": (lambda i: i.token("rsa-1", alg="RS384"), "algorithm 'RS384' is not one of"),
    "no subject or client id": (lambda i: i.token(sub=None), "no usable sub, azp or client_id"),
    "garbage": (lambda i: "not.a.jwt", "not a JWT"),
    "20 kB": (lambda i: "a" * 20_000, "longer than 16384 characters"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
async def test_a_hostile_token_gets_401_pointing_to_the_metadata(
    name: str, data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="deepr_mcp.auth")
    make, reason = HOSTILE[name]
    async with oauth_issuer() as issuer, oauth_server(oauth_settings(data_dir, issuer, leeway_s=0)) as base:
        status, challenge, body = await post_initialize(base, make(issuer))
        assert (status, body.get("error")) == (401, "invalid_token")
        assert f'resource_metadata="{METADATA_URL}"' in challenge
        assert reason in caplog.text
        assert (await post_initialize(base, issuer.token()))[0] == 200  # still serving good tokens


async def test_no_token_gets_401_naming_the_metadata(data_dir: Path) -> None:
    async with oauth_issuer() as issuer, oauth_server(oauth_settings(data_dir, issuer)) as base:
        status, challenge, body = await post_initialize(base, None)
        assert status == 401
        assert challenge.startswith("Bearer ") and f'resource_metadata="{METADATA_URL}"' in challenge
        assert body["error"] == "invalid_token"
        assert (await post_initialize(base, ""))[0] == 401  # "Authorization: Bearer " and nothing after


async def test_a_missing_required_scope_gets_403_insufficient_scope(data_dir: Path) -> None:
    async with oauth_issuer() as issuer:
        settings = oauth_settings(data_dir, issuer, required_scopes=["research"])
        async with oauth_server(settings) as base:
            status, challenge, body = await post_initialize(base, issuer.token(scope="read approve"))
            assert status == 403
            assert body["error"] == "insufficient_scope" and "research" in body["error_description"]
            assert 'error="insufficient_scope"' in challenge
            async with client_with(base, issuer.token(scp=["read", "research"])) as client:
                assert len((await client.list_tools()).tools) == 2


async def test_metadata_is_rfc_9728_json(data_dir: Path) -> None:
    async with oauth_issuer() as issuer, oauth_server(oauth_settings(data_dir, issuer)) as base:
        async with aiohttp.ClientSession() as http:
            for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]:
                async with http.get(base + path) as resp:
                    assert resp.status == 200, path
                    assert await resp.json() == {
                        "resource": "https://deepr.test/mcp",
                        "authorization_servers": ["https://issuer.test"],
                        "scopes_supported": ["read", "research", "approve", "admin"],
                        "bearer_methods_supported": ["header"],
                        "resource_name": "deepr-mcp",
                    }


async def test_an_unknown_kid_refetches_the_jwks_once_then_is_refused(data_dir: Path) -> None:
    async with oauth_issuer() as issuer:
        settings = oauth_settings(data_dir, issuer, jwks_refresh_min_interval_s=3600)
        async with oauth_server(settings) as base:
            assert (await post_initialize(base, issuer.token()))[0] == 200
            assert issuer.fetches == 1
            issuer.add_key("ghost", publish=False)
            assert (await post_initialize(base, issuer.token("ghost")))[0] == 401
            assert issuer.fetches == 2  # refreshed once, in case the issuer had rotated its keys
            for _ in range(5):
                assert (await post_initialize(base, issuer.token("ghost")))[0] == 401
            assert issuer.fetches == 2  # ... and not again within jwks_refresh_min_interval_s


async def test_a_rotated_key_is_picked_up_by_refetching(data_dir: Path) -> None:
    async with oauth_issuer() as issuer, oauth_server(oauth_settings(data_dir, issuer)) as base:
        assert (await post_initialize(base, issuer.token()))[0] == 200
        issuer.add_key("rsa-2")  # published after the server cached the set
        assert (await post_initialize(base, issuer.token("rsa-2")))[0] == 200
        assert issuer.fetches == 2


async def test_jwks_down_gives_401_and_a_clear_log_line(data_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="deepr_mcp.auth")
    async with oauth_issuer(down=True) as issuer, oauth_server(oauth_settings(data_dir, issuer)) as base:
        status, challenge, _ = await post_initialize(base, issuer.token())
        assert status == 401 and "resource_metadata" in challenge
    assert f"JWKS {issuer.jwks_url} unavailable: HTTP 503" in caplog.text


async def test_jwks_unreachable_gives_401(data_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="deepr_mcp.auth")
    async with oauth_issuer() as issuer:
        pass  # its port is closed now
    async with oauth_server(oauth_settings(data_dir, issuer)) as base:
        assert (await post_initialize(base, issuer.token()))[0] == 401
        assert (await post_initialize(base, None))[0] == 401
    assert f"JWKS {issuer.jwks_url} unavailable: ClientConnectorError" in caplog.text


async def test_the_static_token_still_works_beside_oauth(data_dir: Path) -> None:
    async with oauth_issuer() as issuer:
        settings = Settings(
            data_dir=data_dir, auth_token="static-token-0123456789", auth=oauth_settings(data_dir, issuer).auth
        )
        async with oauth_server(settings) as base:
            assert (await post_initialize(base, "static-token-0123456789"))[0] == 200
            assert (await post_initialize(base, issuer.token()))[0] == 200
            assert (await post_initialize(base, "static-token-012345678"))[0] == 401


async def test_oauth_allows_a_non_loopback_bind(data_dir: Path) -> None:
    async with oauth_issuer() as issuer:
        settings = oauth_settings(data_dir, issuer)
        check_bind(Settings(data_dir=data_dir, http={"host": "0.0.0.0"}, auth=settings.auth))  # no refusal
        with pytest.raises(InvalidInput, match=r"refusing to bind 0\.0\.0\.0"):  # which it is without [auth.oauth]
            check_bind(Settings(data_dir=data_dir, http={"host": "0.0.0.0"}))


async def test_the_cli_server_takes_auth_oauth_from_its_config_file(data_dir: Path, tmp_path: Path) -> None:
    async with oauth_issuer() as issuer:
        config = tmp_path / "config.toml"
        config.write_text(
            f'[auth.oauth]\nissuer = "{issuer.name}"\njwks_url = "{issuer.jwks_url}"\n'
            f'resource_url = "{issuer.resource}"\nrequired_scopes = ["read"]\n'
        )
        async with http_server(data_dir, DEEPR_CONFIG=str(config)) as base:
            assert (await post_initialize(base, None))[0] == 401
            assert (await post_initialize(base, issuer.token(scope="research")))[0] == 403
            async with client_with(base, issuer.token(scope="read")) as client:
                result = await client.call_tool("tool_call", {"name": "server_info", "arguments": {}})
                assert structured(result)["name"] == "deepr-mcp"


async def test_the_public_host_of_the_resource_url_is_accepted(data_dir: Path) -> None:
    """Behind a proxy the Host is the resource URL's (deepr.test), not 127.0.0.1."""
    async with oauth_issuer() as issuer, oauth_server(oauth_settings(data_dir, issuer)) as base:
        headers = {**ACCEPT, "Authorization": f"Bearer {issuer.token()}"}
        async with aiohttp.ClientSession() as http:
            for host, origin, status in [
                ("deepr.test", "https://deepr.test", 200),
                ("evil.test", "https://deepr.test", 421),
                ("deepr.test", "https://evil.test", 403),
                ("deepr.test.evil.test", "https://deepr.test", 421),
            ]:
                sent = {**headers, "Host": host, "Origin": origin}
                async with http.post(f"{base}/mcp", json=INITIALIZE, headers=sent) as resp:
                    assert resp.status == status, (host, origin)


async def test_a_session_answers_only_the_principal_that_opened_it(data_dir: Path) -> None:
    async with oauth_issuer() as issuer, oauth_server(oauth_settings(data_dir, issuer)) as base:
        async with aiohttp.ClientSession() as http:
            alice = {**ACCEPT, "Authorization": f"Bearer {issuer.token(sub='alice')}"}
            async with http.post(f"{base}/mcp", json=INITIALIZE, headers=alice) as resp:
                session = resp.headers["Mcp-Session-Id"]
            listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
            for sub, status in [("bob", 404), ("alice", 200)]:  # alice with a new token of her own is fine
                token = issuer.token(sub=sub, exp=int(time.time()) + 900)
                sent = {**ACCEPT, "Authorization": f"Bearer {token}", "Mcp-Session-Id": session}
                sent["MCP-Protocol-Version"] = "2025-11-25"
                async with http.post(f"{base}/mcp", json=listing, headers=sent) as resp:
                    assert resp.status == status, sub
