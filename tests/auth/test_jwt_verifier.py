"""``JwtVerifier`` on its own: what an accepted token maps to, and odd claims refused (not raised)."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import jwt
import pytest

from deepr_mcp.auth.jwt_verifier import JwtVerifier
from deepr_mcp.config.auth import OAuthSettings
from tests.auth.issuer import Issuer, oauth_issuer


def verifier(issuer: Issuer, **fields: Any) -> JwtVerifier:
    return JwtVerifier(
        OAuthSettings(issuer=issuer.name, jwks_url=issuer.jwks_url, resource_url=issuer.resource, **fields)
    )


async def test_sub_scope_and_azp_map_onto_the_access_token() -> None:
    async with oauth_issuer() as issuer:
        exp = int(time.time()) + 300
        token = issuer.token(
            sub="alice", azp="research-agent", scope="read research", exp=exp, aud=["x", issuer.resource]
        )
        access = await verifier(issuer).verify_token(token)
        assert access is not None
        assert (access.subject, access.client_id, access.scopes) == (
            f"{issuer.name}#sub=alice",  # issuer-qualified: never a configured principal's name
            f"{issuer.name}#client=research-agent",
            ["read", "research"],
        )
        assert (access.expires_at, access.resource, access.token) == (exp, issuer.resource, token)
        assert access.claims is not None and access.claims["iss"] == issuer.name


async def test_a_client_credentials_token_is_named_by_its_client_id() -> None:
    async with oauth_issuer() as issuer:
        access = await verifier(issuer).verify_token(issuer.token(sub=None, client_id="ci-bot", scope="read"))
        assert access is not None and (access.subject, access.client_id) == (None, f"{issuer.name}#client=ci-bot")


async def test_a_scope_claim_of_another_type_grants_no_scope() -> None:
    async with oauth_issuer() as issuer:
        for scope in [5, {"read": True}, None]:
            access = await verifier(issuer).verify_token(issuer.token(scope=scope))
            assert access is not None and access.scopes == []


async def test_audience_may_be_set_apart_from_the_resource_url() -> None:
    async with oauth_issuer() as issuer:
        check = verifier(issuer, audience="api://deepr")
        assert await check.verify_token(issuer.token(aud="api://deepr")) is not None
        assert await check.verify_token(issuer.token()) is None


async def test_a_trailing_slash_on_the_audience_is_the_same_resource() -> None:
    async with oauth_issuer() as issuer:
        assert await verifier(issuer).verify_token(issuer.token(aud=issuer.resource + "/")) is not None


def raw_token(issuer: Issuer, header: Any, payload: Any) -> str:
    """Signs arbitrary JSON (even a non-object payload) with rsa-1, as a careless issuer might."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    def b64(value: Any) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    signing_input = f"{b64(header)}.{b64(payload)}"
    signature = issuer.keys["rsa-1"].sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


ODD = {
    "exp as text": {"exp": "tomorrow"},
    "aud as a number": {"aud": 5},
    "iss as a list": {"iss": ["https://issuer.test"]},
    "sub as a number": {"sub": 7},
    "azp as a number": {"azp": 5, "sub": None},
}


@pytest.mark.parametrize("name", list(ODD))
async def test_odd_claim_types_are_refused_not_raised(name: str) -> None:
    async with oauth_issuer() as issuer:
        claims = issuer.claims(**ODD[name])
        assert await verifier(issuer).verify_token(raw_token(issuer, {"alg": "RS256", "kid": "rsa-1"}, claims)) is None


@pytest.mark.parametrize(
    ("header", "payload"),
    [
        ({"alg": "RS256", "kid": {"nested": 1}}, None),
        ({"alg": ["RS256"], "kid": "rsa-1"}, None),
        ({"alg": "RS256", "kid": "rsa-1", "crit": ["exp"]}, None),
        ({"alg": "RS256", "kid": "rsa-1"}, ["not", "an", "object"]),
        ({"alg": "RS256", "kid": "rsa-1"}, "a string"),
    ],
)
async def test_odd_headers_and_payloads_are_refused(header: Any, payload: Any) -> None:
    async with oauth_issuer() as issuer:
        token = raw_token(issuer, header, issuer.claims() if payload is None else payload)
        assert await verifier(issuer).verify_token(token) is None


async def test_a_token_without_kid_uses_the_only_key() -> None:
    async with oauth_issuer() as issuer:
        issuer.published = ["ec-1"]
        token = jwt.encode(issuer.claims(), issuer.keys["ec-1"], algorithm="ES256")
        assert await verifier(issuer).verify_token(token) is not None
        issuer.published = ["ec-1", "rsa-1"]
        assert await verifier(issuer).verify_token(token) is None  # two keys: which one? refused
