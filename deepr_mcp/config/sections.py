"""The small sections of the settings: each a ``[table]`` of the config file and a ``DEEPR_<SECTION>_*`` prefix."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr, field_validator

from deepr_mcp.config.upstreams import ResearchSourceSettings

GatewayMode = Literal["proxy", "search", "full"]
ProviderName = Literal["local", "openai", "anthropic", "client"]
BudgetDecisionName = Literal["approve_override", "optimize_for_cost", "abort"]


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
    max_per_principal: int = Field(
        1024,
        ge=1,
        le=1_000_000,
        description="Subscriptions one principal holds at once, summed over its sessions: resources/subscribe "
        "and the URIs of its open listen streams; with replicas, over all of them (as of their last heartbeat)",
    )
    max_streams: int = Field(1024, ge=1, le=100_000, description="Open listen streams, all principals together")


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
    pdf_reader_memory_bytes: int = Field(
        2 * 1024**3,
        ge=128 * 1024 * 1024,
        description="Address space of the worker process that reads PDF text: a PDF that needs more (one whose "
        "content expands far past its size) fails with that reason, and the server and the other files go on",
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
    sampling_timeout_s: float = Field(
        120.0,
        gt=0,
        le=3600,
        description="With provider 'client': how long one sampling request may wait for the client's model "
        "(its user may have to approve each one) before the step goes to the local provider",
    )
