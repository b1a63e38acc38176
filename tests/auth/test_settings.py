"""``[auth.oauth]``: its defaults, and what it refuses with a message naming the field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deepr_mcp.config import Settings, load_settings
from deepr_mcp.errors import InvalidInput

REQUIRED = {
    "issuer": '"https://issuer.test"',
    "jwks_url": '"https://issuer.test/jwks"',
    "resource_url": '"https://deepr.test/mcp"',
}


def load(tmp_path: Path, **fields: str) -> Settings:
    lines = [f"{k} = {v}" for k, v in {**REQUIRED, **fields}.items()]
    path = tmp_path / "config.toml"
    path.write_text("[auth.oauth]\n" + "\n".join(lines) + "\n")
    return load_settings(path)


def test_defaults(tmp_path: Path) -> None:
    oauth = load(tmp_path).auth.oauth
    assert oauth is not None
    assert oauth.audience == "https://deepr.test/mcp"
    assert (oauth.algorithms, oauth.required_scopes, oauth.leeway_s) == (["RS256", "ES256"], [], 30)


def test_off_by_default(settings: Settings) -> None:
    assert settings.auth.oauth is None


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("algorithms", '["HS256"]', "auth.oauth.algorithms.0"),
        ("algorithms", '["none"]', "auth.oauth.algorithms.0"),
        ("algorithms", "[]", "auth.oauth.algorithms"),
        ("required_scopes", '["root"]', "unknown scopes ['root']"),
        ("jwks_url", '"http://issuer.test/jwks"', "jwks_url must use https (plain http only on loopback)"),
        ("resource_url", '"deepr"', "resource_url must be an http(s) URL"),
        ("leeway_s", "3600", "auth.oauth.leeway_s"),
    ],
)
def test_bad_values_are_refused_naming_the_field(tmp_path: Path, field: str, value: str, why: str) -> None:
    with pytest.raises(InvalidInput, match=re.escape(why)):
        load(tmp_path, **{field: value})


def test_plain_http_jwks_is_fine_on_loopback(tmp_path: Path) -> None:
    oauth = load(tmp_path, jwks_url='"http://127.0.0.1:9/jwks"').auth.oauth
    assert oauth is not None and oauth.jwks_url == "http://127.0.0.1:9/jwks"
