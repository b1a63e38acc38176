"""One ``[[upstreams]]`` entry: how to reach a federated MCP server and how far to trust it.

Either ``command`` (+ ``args``, ``env``: a stdio subprocess) or ``url`` (+ ``headers``:
streamable HTTP; with ``transport = "auto"`` a 4xx answer to its initialize POST falls back to
the legacy HTTP+SSE transport, as the spec's backwards-compatibility section describes;
``transport = "sse"`` goes there directly). Tool names pass ``allow`` then ``deny`` (shell globs on the
upstream's own names) and are published as ``prefix`` + name, ``prefix`` defaulting to
``"{name}_"``.
"""

from __future__ import annotations

import fnmatch
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

__all__ = ["ResearchSourceSettings", "UpstreamList", "UpstreamSettings", "UpstreamTransport"]

UpstreamTransport = Literal["auto", "stdio", "http", "sse"]

NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_-]{0,31}$"


class UpstreamSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME_PATTERN, description="Short id: letters, digits, '_', '-' (starts with a letter)")
    command: str | None = Field(None, min_length=1, description="stdio: the executable to launch")
    args: list[str] = Field(default_factory=list, description="stdio: its arguments")
    env: dict[str, str] = Field(default_factory=dict, description="stdio: extra environment variables")
    cwd: str | None = Field(None, description="stdio: working directory")
    url: str | None = Field(None, description="HTTP: the server's MCP endpoint (http:// or https://)")
    headers: dict[str, SecretStr] = Field(default_factory=dict, description="HTTP: headers sent with every request")
    transport: UpstreamTransport = Field(
        "auto", description="auto: stdio for a command; for a url, streamable HTTP, falling back to SSE on a 4xx"
    )
    allow: list[str] = Field(default_factory=lambda: ["*"], description="Tool-name globs to take (upstream names)")
    deny: list[str] = Field(default_factory=list, description="Tool-name globs to leave out (wins over allow)")
    prefix: str = Field("{name}_", max_length=40, description="Put before every tool name; {name} is this upstream")
    timeout_s: float = Field(30.0, gt=0, le=3600, description="Longest one call (or one tools/list) may take")
    connect_timeout_s: float = Field(
        30.0, gt=0, le=600, description="Longest starting or reaching the server and its initialize may take"
    )
    max_concurrency: int = Field(8, ge=1, le=1024, description="Calls in flight at once; more wait their turn")
    failure_threshold: int = Field(5, ge=1, le=1000, description="Consecutive failures that open the breaker")
    breaker_reset_s: float = Field(30.0, gt=0, le=3600, description="How long an open breaker refuses calls")
    scope: Literal["read", "research", "approve", "admin"] = Field(
        "research", description="The scope a caller needs to run this upstream's tools"
    )
    max_result_bytes: int = Field(
        16 * 1024 * 1024, ge=1024, description="A tool result larger than this (as JSON) is refused, not passed on"
    )
    max_tools: int = Field(
        2000, ge=1, le=100_000, description="Tools published from this upstream at most; the rest are left out"
    )

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None:
            parts = urlsplit(value)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"must be an http:// or https:// URL with a host, got {value!r}")
        return value

    @field_validator("prefix")
    @classmethod
    def _prefix_chars(cls, value: str) -> str:
        sample = value.replace("{name}", "x")
        if "{" in sample or "}" in sample or not all(c.isascii() and (c.isalnum() or c in "_-") for c in sample):
            raise ValueError(f"may hold letters, digits, '_', '-' and {{name}}, got {value!r}")
        return value

    @model_validator(mode="after")
    def _one_way_in(self) -> UpstreamSettings:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"upstream {self.name!r}: set exactly one of command (stdio) or url (HTTP)")
        if self.command is not None and self.transport not in ("auto", "stdio"):
            raise ValueError(f"upstream {self.name!r}: transport {self.transport!r} needs a url, not a command")
        if self.url is not None and self.transport == "stdio":
            raise ValueError(f"upstream {self.name!r}: transport 'stdio' needs a command, not a url")
        return self

    @property
    def kind(self) -> Literal["stdio", "http", "sse"]:
        """The transport tried first (``auto`` with a url may then fall back to ``sse``)."""
        if self.command is not None:
            return "stdio"
        return "sse" if self.transport == "sse" else "http"

    @property
    def sse_fallback(self) -> bool:
        """Whether a 4xx answer to the streamable HTTP initialize means: try the legacy SSE transport."""
        return self.url is not None and self.transport == "auto"

    @property
    def tool_prefix(self) -> str:
        return self.prefix.replace("{name}", self.name)

    def takes(self, tool_name: str) -> bool:
        """Whether a tool of this upstream passes ``allow`` and then ``deny``."""
        allowed = any(fnmatch.fnmatchcase(tool_name, glob) for glob in self.allow)
        return allowed and not any(fnmatch.fnmatchcase(tool_name, glob) for glob in self.deny)

    def where(self) -> str:
        """The endpoint, for messages: the command line or the URL (never the headers)."""
        if self.command is not None:
            return " ".join([self.command, *self.args])
        return self.url or ""


def _unique_names(upstreams: list[UpstreamSettings]) -> list[UpstreamSettings]:
    names = [u.name for u in upstreams]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"upstream names must be unique; repeated: {dupes}")
    return upstreams


UpstreamList = Annotated[list[UpstreamSettings], AfterValidator(_unique_names)]
"""The ``[[upstreams]]`` array of the config file, names unique."""


class ResearchSourceSettings(BaseModel):
    """``[[research.sources]]``: an upstream tool a campaign asks beside the corpus, once per sub-question."""

    model_config = ConfigDict(extra="forbid")

    upstream: str = Field(pattern=NAME_PATTERN, description="The [[upstreams]] name")
    tool: str = Field(min_length=1, max_length=128, description="The upstream's own tool name (no prefix)")
    query_arg: str = Field("query", min_length=1, max_length=64, description="The argument the question goes in")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Fixed extra arguments for every call")
    limit: int = Field(5, ge=1, le=50, description="Passages kept per sub-question")
    cost_per_call: float = Field(0.0, ge=0, description="Dollars one call costs, counted in the campaign's spend")
