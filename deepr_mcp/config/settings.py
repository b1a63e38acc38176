"""The one Settings model, its sections gathered: defaults < TOML file < ``DEEPR_*`` environment < CLI flags.

Sections map onto environment variables with one underscore after the section name, so
``[gateway] mode`` is ``DEEPR_GATEWAY_MODE`` and ``[openai] base_url`` is
``DEEPR_OPENAI_BASE_URL``. Secrets are ``SecretStr`` so ``config show`` never prints them.
"""

from __future__ import annotations

import os
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from deepr_mcp.config.auth import AuthSettings, token_or_none
from deepr_mcp.config.sections import (
    AnthropicSettings,
    AppsSettings,
    BudgetSettings,
    CorpusSettings,
    GatewaySettings,
    HttpSettings,
    JobSettings,
    ObjectSettings,
    OpenAISettings,
    PriceSettings,
    ProviderName,
    ResearchSettings,
    SandboxSettings,
    SubscriptionSettings,
    WebSettings,
)
from deepr_mcp.config.store import StoreSettings
from deepr_mcp.config.upstreams import UpstreamList
from deepr_mcp.errors import InvalidInput

CONFIG_ENV = "DEEPR_CONFIG"
_explicit_config_file: ContextVar[Path | None] = ContextVar("deepr_config_file", default=None)


def default_data_dir() -> Path:
    """A per-user data directory, so two users (or two data dirs) never share state."""
    return Path(platformdirs.user_data_dir("deepr-mcp", appauthor=False))


def default_config_file() -> Path:
    return Path(platformdirs.user_config_dir("deepr-mcp", appauthor=False)) / "config.toml"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="DEEPR_",
        env_nested_delimiter="_",
        env_nested_max_split=1,
        extra="ignore",
        validate_default=True,
    )

    data_dir: Path = Field(default_factory=default_data_dir)
    auth_token: SecretStr | None = Field(None, description="One token for one principal 'owner' with all scopes")
    auth: AuthSettings = Field(default_factory=AuthSettings)
    provider: ProviderName = "local"
    event_loop: Literal["auto", "asyncio", "uvloop"] = Field(
        "auto", description="The server's event loop; auto = uvloop when installed (about 20% less CPU per push)"
    )
    gateway: GatewaySettings = Field(default_factory=GatewaySettings)
    apps: AppsSettings = Field(default_factory=AppsSettings)
    http: HttpSettings = Field(default_factory=HttpSettings)
    openai: OpenAISettings = Field(default_factory=OpenAISettings)
    anthropic: AnthropicSettings = Field(default_factory=AnthropicSettings)
    price: PriceSettings = Field(default_factory=PriceSettings)
    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    jobs: JobSettings = Field(default_factory=JobSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    corpus: CorpusSettings = Field(default_factory=CorpusSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    subscriptions: SubscriptionSettings = Field(default_factory=SubscriptionSettings)
    research: ResearchSettings = Field(default_factory=ResearchSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    upstreams: UpstreamList = Field(
        default_factory=list, description="[[upstreams]]: MCP servers whose tools join the catalogue"
    )
    objects: ObjectSettings = Field(default_factory=ObjectSettings)

    _auth_token = field_validator("auth_token", mode="before")(classmethod(lambda cls, v: token_or_none(v)))

    @field_validator("data_dir")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser()

    @model_validator(mode="after")
    def _sources_name_upstreams(self) -> Settings:
        names = {u.name for u in self.upstreams}
        for source in self.research.sources:
            if source.upstream not in names:
                known = ", ".join(sorted(names)) or "none configured"
                raise ValueError(f"research source names upstream {source.upstream!r}; [[upstreams]] has: {known}")
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_file: Path | str | None = _explicit_config_file.get()
        if toml_file is None:
            # DEEPR_CONFIG set but empty means "no config file at all" (tests, sandboxes).
            env_value = os.environ.get(CONFIG_ENV)
            toml_file = default_config_file() if env_value is None else (env_value or None)
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_file=toml_file))

    def public_dict(self) -> dict[str, Any]:
        """The effective settings with every secret replaced by ``"***"`` (or ``null`` if unset)."""
        return self.model_dump(mode="json")


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Build the effective settings; CLI flags arrive as ``overrides`` and win over everything.

    Raises ``InvalidInput`` naming the bad field, instead of a pydantic traceback.
    """
    if config_file is None and os.environ.get(CONFIG_ENV):
        config_file = Path(os.environ[CONFIG_ENV])
    if config_file is not None and not config_file.is_file():
        raise InvalidInput(f"config file {str(config_file)!r} does not exist")
    token = _explicit_config_file.set(config_file)
    try:
        if config_file is not None:
            with config_file.open("rb") as fh:
                tomllib.load(fh)
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"config file {str(config_file)!r} is not valid TOML: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(f"invalid configuration: {problems}") from None
    finally:
        _explicit_config_file.reset(token)
