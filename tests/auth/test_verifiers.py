"""Static tokens through the SDK's TokenVerifier seam, and the settings they come from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deepr_mcp.auth.verifiers import (
    CompositeTokenVerifier,
    StaticToken,
    StaticTokenVerifier,
    sha256_hex,
    token_verifier,
)
from deepr_mcp.config import Settings, load_settings
from deepr_mcp.errors import InvalidInput

A, B = "alpha-token-0123456789", "bravo-token-0123456789"


async def test_plain_and_hashed_tokens_map_to_their_principal() -> None:
    verifier = StaticTokenVerifier([StaticToken("a", sha256_hex(A), ["read"]), StaticToken("b", sha256_hex(B), [])])
    found = await verifier.verify_token(A)
    assert found is not None and (found.subject, found.scopes) == ("a", ["read"])
    assert (await verifier.verify_token(B)).subject == "b"  # type: ignore[union-attr]
    for bad in ["", " ", A + " ", A[:-1], sha256_hex(A), "\x00", "\ud800"]:
        assert await verifier.verify_token(bad) is None, bad


async def test_the_composite_tries_each_verifier_in_order() -> None:
    first = StaticTokenVerifier([StaticToken("a", sha256_hex(A), ["read"])])
    second = StaticTokenVerifier([StaticToken("b", sha256_hex(B), ["admin"])])
    both = CompositeTokenVerifier([first, second])
    assert (await both.verify_token(A)).subject == "a"  # type: ignore[union-attr]
    assert (await both.verify_token(B)).subject == "b"  # type: ignore[union-attr]
    assert await both.verify_token("nobody-0123456789abc") is None


async def test_settings_build_the_verifier(settings: Settings) -> None:
    assert token_verifier(settings) is None
    settings = Settings(
        data_dir=settings.data_dir,
        auth_token=A,
        auth={"principals": [{"name": "bob", "token_sha256": sha256_hex(B), "scopes": ["read", "approve"]}]},
    )
    verifier = token_verifier(settings)
    assert verifier is not None
    owner = await verifier.verify_token(A)
    assert (
        owner is not None and owner.subject == "owner" and set(owner.scopes) == {"read", "research", "approve", "admin"}
    )
    assert (await verifier.verify_token(B)).scopes == ["read", "approve"]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("principals", "message"),
    [
        ([{"name": "x", "scopes": ["read"]}], "exactly one of token or token_sha256"),
        ([{"name": "x", "token": A, "token_sha256": sha256_hex(A)}], "exactly one of token or token_sha256"),
        ([{"name": "x", "token": "   "}], "exactly one of token or token_sha256"),
        ([{"name": "x", "token": "short"}], "at least 16 characters"),
        ([{"name": "x", "token_sha256": "abc"}], "64 hex digits"),
        ([{"name": "x", "token": A, "scopes": ["write"]}], "scopes"),
        ([{"name": "x y", "token": A}], "name"),
        ([{"name": "x", "token": A}, {"name": "x", "token": B}], "unique"),
        ([{"name": "local", "token": A}], "reserved"),
        ([{"name": "x", "token": A, "role": "admin"}], "role"),
    ],
)
def test_bad_principals_are_clear_config_errors(
    principals: list[dict[str, object]], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DEEPR_AUTH_TOKEN", raising=False)
    config = tmp_path / "config.toml"
    tables = ["[[auth.principals]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in p.items()) for p in principals]
    config.write_text("\n".join(tables))
    with pytest.raises(InvalidInput, match=message):
        load_settings(config)


def test_two_principals_with_one_token_are_refused(settings: Settings) -> None:
    settings = Settings(data_dir=settings.data_dir, auth_token=A, auth={"principals": [{"name": "x", "token": A}]})
    with pytest.raises(InvalidInput, match="share one token"):
        token_verifier(settings)


@pytest.mark.parametrize("blank", ["", " ", "\t\n "])
def test_blank_tokens_are_unset_everywhere(blank: str, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPR_AUTH_TOKEN", blank)
    assert load_settings().auth_token is None
    assert load_settings(auth_token=blank).auth_token is None
