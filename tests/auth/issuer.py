"""A fake OAuth authorization server: keys made in the test (RSA and EC), a JWKS on 127.0.0.1, signed tokens."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import jwt
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from tests.servers import loopback_app


@dataclass
class Issuer:
    """Signs tokens the way an authorization server would; serves its JWKS at ``jwks_url``."""

    name: str = "https://issuer.test"
    resource: str = "https://deepr.test/mcp"
    jwks_url: str = ""
    keys: dict[str, Any] = field(default_factory=dict)
    """kid -> private key; ``published`` says which public halves the JWKS shows."""
    published: list[str] = field(default_factory=list)
    fetches: int = 0
    down: bool = False

    def add_key(self, kid: str, kind: str = "RSA", *, publish: bool = True) -> Any:
        private = rsa.generate_private_key(65537, 2048) if kind == "RSA" else ec.generate_private_key(ec.SECP256R1())
        self.keys[kid] = private
        if publish:
            self.published.append(kid)
        return private

    def jwk(self, kid: str) -> dict[str, Any]:
        public = self.keys[kid].public_key()
        algorithm = RSAAlgorithm if isinstance(public, rsa.RSAPublicKey) else ECAlgorithm
        return {**json.loads(algorithm.to_jwk(public)), "kid": kid, "use": "sig"}

    def claims(self, **overrides: Any) -> dict[str, Any]:
        now = int(time.time())
        base = {"iss": self.name, "aud": self.resource, "sub": "alice", "scope": "read research", "exp": now + 600}
        base["iat"] = now
        base.update(overrides)
        return {k: v for k, v in base.items() if v is not None}

    def token(self, kid: str = "rsa-1", alg: str | None = None, **claims: Any) -> str:
        """A token signed by key ``kid``; ``claims`` override (``None`` drops) the defaults."""
        key = self.keys[kid]
        alg = alg or ("RS256" if isinstance(key, rsa.RSAPrivateKey) else "ES256")
        return jwt.encode(self.claims(**claims), key, algorithm=alg, headers={"kid": kid})


@asynccontextmanager
async def oauth_issuer(**fields: Any) -> AsyncIterator[Issuer]:
    """An ``Issuer`` with one RSA key (``rsa-1``) and one EC key (``ec-1``), its JWKS on 127.0.0.1."""
    issuer = Issuer(**fields)
    issuer.add_key("rsa-1", "RSA")
    issuer.add_key("ec-1", "EC")

    async def jwks(_: web.Request) -> web.StreamResponse:
        issuer.fetches += 1
        if issuer.down:
            return web.Response(status=503, text="down for maintenance")
        return web.json_response({"keys": [issuer.jwk(kid) for kid in issuer.published]})

    app = web.Application()
    app.router.add_get("/jwks.json", jwks)
    async with loopback_app(app) as base:
        issuer.jwks_url = f"{base}/jwks.json"
        yield issuer
