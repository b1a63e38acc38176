"""The one Settings model: defaults < TOML file < ``DEEPR_*`` environment < CLI flags.

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
from pydantic import BaseModel, Field, SecretStr, ValidationError, field_serializer, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from deepr_mcp.auth.settings import OAuthSettings
from deepr_mcp.errors import InvalidInput
from deepr_mcp.upstreams.settings import ResearchSourceSettings, UpstreamList

GatewayMode = Literal["proxy", "search", "full"]
ProviderName = Literal["local", "openai", "anthropic"]
BudgetDecisionName = Literal["approve_override", "optimize_for_cost", "abort"]

CONFIG_ENV = "DEEPR_CONFIG"
_explicit_config_file: ContextVar[Path | None] = ContextVar("deepr_config_file", default=None)


def default_data_dir() -> Path:
    """A per-user data directory, so two users (or two data dirs) never share state."""
    return Path(platformdirs.user_data_dir("deepr-mcp", appauthor=False))


def default_config_file() -> Path:
    return Path(platformdirs.user_config_dir("deepr-mcp", appauthor=False)) / "config.toml"


class GatewaySettings(BaseModel):
    mode: GatewayMode = Field("proxy", description="proxy: tool_search + tool_call; search: reveal; full: all tools")
    search_limit_max: int = Field(20, ge=1, le=100)
    pinned: list[str] = Field(
        default_factory=list,
        max_length=64,
        description="Tools every first tools/list shows beside the gateway tools (proxy and search modes)",
    )

    @field_validator("pinned")
    @classmethod
    def _pinned_names(cls, value: list[str]) -> list[str]:
        bad = [
            n for n in value if not (1 <= len(n) <= 64 and all(c.isascii() and (c.isalnum() or c in "_-.") for c in n))
        ]
        if bad:
            raise ValueError(f"not tool names: {bad}; a name is 1-64 letters, digits, '_', '-' or '.'")
        return value


class ObjectSettings(BaseModel):
    threshold_bytes: int = Field(
        8192, ge=256, le=64 * 2**20, description="A tool result with more text than this is stored and previewed"
    )
    preview_chars: int = Field(2000, ge=200, le=64 * 2**10, description="Characters of JSON a preview may take")
    ttl_s: float = Field(3600.0, gt=0, le=7 * 24 * 3600, description="How long a stored object is kept")
    max_object_bytes: int = Field(32 * 2**20, ge=1024, description="A bigger result is not stored: its preview says so")
    max_bytes_per_owner: int = Field(
        256 * 2**20, ge=1024, description="Stored bytes per principal; past it its oldest objects are dropped"
    )
    max_total_bytes: int = Field(1024 * 2**20, ge=1024, description="All principals' stored bytes (in-memory store)")


class AppsSettings(BaseModel):
    enabled: bool = Field(
        True,
        description="Offer the MCP Apps campaign dashboard (ui://deepr/campaign and the pinned research tool) to "
        "clients that announce the io.modelcontextprotocol/ui extension; false: every client sees today's list",
    )


class HttpSettings(BaseModel):
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    max_body_bytes: int = Field(1_048_576, gt=0, description="Largest accepted request body")
    allowed_origins: list[str] = Field(default_factory=list, description="Extra Origin values to accept")
    allowed_hosts: list[str] = Field(default_factory=list, description="Extra Host values to accept")
    session_idle_timeout_s: float = Field(
        600.0,
        gt=0,
        le=7 * 24 * 3600,
        description="A streamable HTTP session with no request in flight (an open GET stream counts) for this "
        "long is closed: its subscriptions are dropped and its id answers 404, so the client initializes again",
    )
    max_sessions: int = Field(
        1000,
        ge=1,
        le=1_000_000,
        description="Live streamable HTTP sessions allowed; a new one closes the session idle longest, or gets 503 "
        "if all are busy. Legacy SSE connections are capped at the same number (503 past it)",
    )


class OpenAISettings(BaseModel):
    base_url: str = "https://api.openai.com/v1"
    api_key: SecretStr | None = None
    model: str = "gpt-4o-mini"
    cheap_model: str | None = None


class AnthropicSettings(BaseModel):
    api_key: SecretStr | None = None
    model: str = "claude-sonnet-4-20250514"
    base_url: str = "https://api.anthropic.com"
    cheap_model: str | None = None


class PriceSettings(BaseModel):
    input_per_mtok: float | None = Field(None, ge=0)
    output_per_mtok: float | None = Field(None, ge=0)


class BudgetSettings(BaseModel):
    default: float = Field(1.0, gt=0, description="Dollars a campaign may spend before asking")
    timeout_s: float = Field(300.0, gt=0, description="How long a budget question waits for an answer")
    default_decision: BudgetDecisionName = "abort"


class JobSettings(BaseModel):
    max_concurrent: int = Field(2, ge=1, le=64)
    max_open_per_principal: int = Field(50, ge=1, le=100_000, description="Unfinished campaigns per principal")
    max_running_per_principal: int | None = Field(None, ge=1, le=64, description="Default: max_concurrent")
    """Campaigns one principal runs at once; a freed slot goes to the waiting principal running the fewest."""
    max_resumes: int = Field(3, ge=1, le=100)
    """A campaign resumed this many times without finishing a step is set aside as failed (a crash loop)."""
    step_delay_s: float = Field(
        0.0, ge=0, le=60, description="Pause between research steps (demos, rate-limited providers)"
    )


class SubscriptionSettings(BaseModel):
    writers: int = Field(2, ge=1, le=64, description="Tasks that deliver resources/updated notifications")
    send_timeout_s: float = Field(5.0, gt=0, le=120, description="A subscriber slower than this is dropped")
    max_per_connection: int = Field(256, ge=1, le=100_000, description="Per connection, and URIs per listen")
    max_streams_per_principal: int = Field(32, ge=1, le=100_000, description="Open listen streams per principal")


class CorpusSettings(BaseModel):
    max_file_bytes: int = Field(
        20 * 1024 * 1024, gt=0, description="Larger files are not added to the corpus (reported as failed)"
    )
    roots: list[Path] = Field(
        default_factory=list,
        description="Folders corpus_add may read over MCP; symbolic links out of them are not followed. None set: "
        "corpus_add is refused over HTTP, and over stdio (the user who launched the server) any path is allowed. "
        "The CLI 'deepr-mcp corpus add' reads any path. Env: DEEPR_CORPUS_ROOTS='[\"/srv/docs\"]'",
    )
    max_files_per_call: int = Field(
        1000, ge=1, le=1_000_000, description="Files one corpus_add call over MCP reads at most; the rest are left"
    )
    max_bytes_per_call: int = Field(
        200 * 1024 * 1024, gt=0, description="Bytes one corpus_add call over MCP reads at most; the rest are left"
    )

    @field_validator("roots")
    @classmethod
    def _absolute_roots(cls, roots: list[Path]) -> list[Path]:
        expanded = [root.expanduser() for root in roots]
        relative = [str(root) for root in expanded if not root.is_absolute()]
        if relative:
            raise ValueError(f"corpus roots must be absolute paths, got {', '.join(relative)}")
        return expanded


class SandboxSettings(BaseModel):
    max_bytes: int = Field(50 * 1024 * 1024, gt=0)
    max_files: int = Field(2000, gt=0, description="Files and folders one sandbox may hold")
    max_depth: int = Field(32, ge=1, le=1024, description="Levels a sandbox path may have (folders plus file name)")


class WebSettings(BaseModel):
    searxng_url: str | None = Field(None, description="SearXNG instance with the json format enabled")
    fetch_enabled: bool = Field(False, description="Allow web_fetch to download pages")
    allow_private: bool = Field(False, description="Allow loopback/private addresses (never on a shared server)")
    max_bytes: int = Field(2_000_000, gt=0)
    timeout_s: float = Field(20.0, gt=0, le=300)


class ResearchSettings(BaseModel):
    retrieval: Literal["lexical", "semantic", "hybrid"] = Field(
        "hybrid",
        description="How research and corpus search rank passages: by words (FTS5 BM25), by meaning (the embedder's "
        "nearest neighbours) or both fused (reciprocal rank fusion). Env: DEEPR_RESEARCH_RETRIEVAL",
    )
    embedder: str = Field(
        "minilm",
        min_length=1,
        description="The sentence embedder: minilm (packaged all-MiniLM-L6-v2 int8 ONNX, CPU, no download), none "
        "(words only), or 'package.module:factory' for your own Embedder (a bigger local model, an embeddings API). "
        "After changing it, 'deepr-mcp corpus embed' embeds the corpus again",
    )
    sources: list[ResearchSourceSettings] = Field(
        default_factory=list, description="[[research.sources]]: upstream tools asked beside the corpus"
    )


class StoreSettings(BaseModel):
    """Where shared state lives: unset = the embedded SQLite files in data_dir (one process)."""

    url: str | None = Field(
        None,
        description="redis://HOST:PORT/DB or rediss://HOST:PORT/DB: every replica with the same URL shares campaigns, "
        "leases (takeover when a replica dies), resource updates and budget questions (password in the URL or "
        "DEEPR_STORE_PASSWORD). Unset: embedded SQLite. Flag: serve --store URL",
    )
    password: SecretStr | None = Field(None, description="The Redis password when the URL holds none")
    request_state_key: SecretStr | None = Field(None, min_length=32, description="Seals requestState (security.md)")
    lease_s: float = Field(
        15.0,
        ge=1,
        le=600,
        description="A replica that stops heartbeating loses its campaigns' leases after this long; another replica "
        "then resumes them from their last saved step",
    )

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        from deepr_mcp.stores.url import check_store_url

        return check_store_url(value)

    @field_serializer("url")
    def _hide_password(self, value: str | None) -> str | None:
        """``config show`` prints the URL with its password (if any) as ``***``."""
        if value is None:
            return None
        from deepr_mcp.stores.url import redact

        return redact(value)


MIN_TOKEN_CHARS = 16
ScopeName = Literal["read", "research", "approve", "admin"]


def _token_or_none(value: Any) -> Any:
    """A blank or whitespace-only token is no token (``DEEPR_AUTH_TOKEN="$UNSET_VAR"`` must not open the door)."""
    raw = value.get_secret_value() if isinstance(value, SecretStr) else value
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if isinstance(raw, str) and len(raw.strip()) < MIN_TOKEN_CHARS:
        raise ValueError(
            f"a token must be at least {MIN_TOKEN_CHARS} characters (got {len(raw.strip())}); "
            "generate one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    return raw.strip() if isinstance(raw, str) else value


class PrincipalSettings(BaseModel):
    """One ``[[auth.principals]]`` entry: who a bearer token stands for and what it may do."""

    model_config = {"extra": "forbid"}
    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.@-]+$")
    token: SecretStr | None = None
    token_sha256: str | None = Field(None, description="Hex SHA-256 of the token, instead of the token itself")
    scopes: list[ScopeName] = Field(default_factory=lambda: ["read"])

    _token = field_validator("token", mode="before")(classmethod(lambda cls, v: _token_or_none(v)))

    @field_validator("token_sha256")
    @classmethod
    def _hex(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().lower()
        if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
            raise ValueError("token_sha256 must be 64 hex digits (sha256sum of the token)")
        return value

    @model_validator(mode="after")
    def _one_secret(self) -> PrincipalSettings:
        if (self.token is None) == (self.token_sha256 is None):
            raise ValueError(f"principal {self.name!r} needs exactly one of token or token_sha256")
        return self


class AuthSettings(BaseModel):
    """Who may call the server over HTTP: static-token principals and, optionally, OAuth 2.1 JWTs."""

    principals: list[PrincipalSettings] = Field(default_factory=list)
    oauth: OAuthSettings | None = Field(None, description="Accept JWTs from an OAuth 2.1 authorization server")

    @model_validator(mode="after")
    def _unique(self) -> AuthSettings:
        names = [p.name for p in self.principals]
        dupes = sorted({n for n in names if names.count(n) > 1} | ({"local", "owner"} & set(names)))
        if dupes:
            raise ValueError(f"principal names must be unique and not 'local' or 'owner' (reserved): {dupes}")
        return self


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

    _auth_token = field_validator("auth_token", mode="before")(classmethod(lambda cls, v: _token_or_none(v)))

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
