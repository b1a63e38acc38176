"""Principals over real HTTP: the matrix's cast with their tokens, a server that knows them, a client for each."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client

from deepr_mcp.app.root import Root
from deepr_mcp.config import Settings
from tests.clients import ERAS
from tests.servers import inprocess_http, inprocess_services

PRINCIPAL_SCOPES: dict[str, list[str]] = {
    "reader": ["read"],
    "researcher": ["read", "research"],
    "approver": ["read", "approve"],
    "admin": ["read", "admin"],
    "other": ["read", "research"],
}
"""The principals matrix's cast: ``other`` is a second researcher who was not shared anything."""


def principal_token(name: str) -> str:
    return f"token-of-{name}-0123456789abcdef"


def principals_config(scopes: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """``[[auth.principals]]`` for ``scopes`` (default: the matrix's cast), each with its own token."""
    entries = [
        {"name": name, "token": principal_token(name), "scopes": s} for name, s in (scopes or PRINCIPAL_SCOPES).items()
    ]
    return {"principals": entries}


@asynccontextmanager
async def principal_server(data_dir: Path, **config: Any) -> AsyncIterator[tuple[Root, str]]:
    """The real HTTP app on an ephemeral 127.0.0.1 port with the matrix's principals configured."""
    settings = Settings(data_dir=data_dir, auth=principals_config(), **config)
    async with inprocess_services(settings) as services, inprocess_http(services) as base:
        yield services, base


@asynccontextmanager
async def as_principal(base: str, name: str | None, era: str = "legacy", **client_kwargs: Any) -> AsyncIterator[Client]:
    """An SDK client on ``base``/mcp sending ``name``'s bearer token (``None``: no token)."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {principal_token(name)}"} if name else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(
            streamable_http_client(f"{base}/mcp", http_client=http), mode=ERAS[era], **client_kwargs
        ) as client:
            yield client
