"""``store.url``: what is accepted, what is refused and how, from the environment, a file or ``--store``."""

from __future__ import annotations

import pytest

from deepr_mcp.cli import build_parser
from deepr_mcp.cli.args import settings_for
from deepr_mcp.config import Settings, load_settings
from deepr_mcp.config.store import redact
from deepr_mcp.errors import InvalidInput


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1:6379/0", "scheme 'http'"),
        ("127.0.0.1:6379", "scheme"),
        ("redis://127.0.0.1/0", "no port"),
        ("redis://:6379/0", "no host"),
        ("redis://127.0.0.1:99999/0", "out of range"),
        ("redis://127.0.0.1:port/0", "expected redis://"),
        ("redis://127.0.0.1:6379/16", "0-15"),
        ("redis://127.0.0.1:6379/zero", "0-15"),
        ("redis://127.0.0.1:6379/0?ssl=1", "no ?query"),
        ("redis://:s3cret-pass@127.0.0.1/0", "no port"),
    ],
)
def test_malformed_urls_are_refused_saying_what_is_allowed(settings: Settings, url: str, why: str) -> None:
    with pytest.raises(InvalidInput, match="expected redis://HOST:PORT/DB or rediss://") as refused:
        load_settings(None, store={"url": url})
    assert why in refused.value.message and "s3cret-pass" not in refused.value.message


def test_unset_or_blank_means_the_embedded_sqlite(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    assert settings.store.url is None and settings.store.lease_s == 15.0
    monkeypatch.setenv("DEEPR_STORE_URL", "  ")
    assert load_settings().store.url is None


def test_env_password_and_flag(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPR_STORE_URL", "rediss://cache.internal:6380/2")
    monkeypatch.setenv("DEEPR_STORE_PASSWORD", "from-the-env")
    monkeypatch.setenv("DEEPR_STORE_LEASE_S", "5")
    loaded = load_settings()
    assert loaded.store.url == "rediss://cache.internal:6380/2" and loaded.store.lease_s == 5
    assert loaded.store.password is not None and "from-the-env" not in str(loaded.public_dict())
    args = build_parser().parse_args(["serve", "--store", "redis://127.0.0.1:7000/1"])
    flagged = settings_for(args)
    assert flagged.store.url == "redis://127.0.0.1:7000/1" and flagged.store.password is not None  # merged


def test_passwords_never_reach_messages_or_config_show(settings: Settings) -> None:
    assert redact("redis://user:p@ss:w0rd@h:1/0") == "redis://user:***@h:1/0"
    assert redact("redis://h:1/0") == "redis://h:1/0"
    loaded = load_settings(None, store={"url": "redis://:hunter22@127.0.0.1:6379/0"})
    assert loaded.public_dict()["store"]["url"] == "redis://:***@127.0.0.1:6379/0"
    assert loaded.store.url == "redis://:hunter22@127.0.0.1:6379/0"
