"""Build the configured provider; the only place that reads provider settings."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

import aiohttp

from deepr_mcp.config import Settings
from deepr_mcp.embedding.base import Embedder
from deepr_mcp.errors import ProviderError
from deepr_mcp.research.providers.anthropic_messages import AnthropicProvider
from deepr_mcp.research.providers.base import Provider
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.research.providers.openai_compat import OpenAIProvider
from deepr_mcp.research.providers.sampling import Sampler, SamplingProvider


async def no_client(_request: object) -> None:
    """The sampler where no client is connected (the CLI): every step goes to the local provider."""
    return None


def needs_key(base_url: str) -> bool:
    """Hosted endpoints want a key; a server on this machine or the LAN (Ollama, vLLM) may not."""
    host = (urlsplit(base_url).hostname or "").lower()
    local = host in ("localhost", "::1") or host.endswith(".local")
    try:
        local = local or ipaddress.ip_address(host).is_private or ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    return not local


def make_provider(
    settings: Settings,
    session: aiohttp.ClientSession | None,
    name: str,
    *,
    cheap: bool = False,
    embedder: Embedder | None = None,
    sampler: Sampler | None = None,
) -> Provider:
    """``embedder``: the corpus's, which the local provider also uses to choose sentences by meaning;
    ``sampler``: the campaign's way to its clients' models (provider ``client``)."""
    if name == "local":
        return LocalProvider(embedder)
    if name == "client":
        return SamplingProvider(sampler or no_client, LocalProvider(embedder))
    if session is None:
        raise ProviderError(name, "no HTTP session; the server's lifespan opens one")
    if name == "openai":
        cfg = settings.openai
        model = cfg.cheap_model if cheap and cfg.cheap_model else cfg.model
        key = cfg.api_key.get_secret_value().strip() if cfg.api_key else None
        if not key and needs_key(cfg.base_url):
            raise ProviderError(
                "openai",
                f"no API key for {cfg.base_url}; set DEEPR_OPENAI_API_KEY, or point DEEPR_OPENAI_BASE_URL at a "
                "local endpoint that needs none (Ollama, vLLM: http://127.0.0.1:11434/v1)",
            )
        return OpenAIProvider(session, base_url=cfg.base_url, api_key=key, model=model)
    if name == "anthropic":
        cfg_a = settings.anthropic
        if cfg_a.api_key is None:
            raise ProviderError("anthropic", "no API key; set DEEPR_ANTHROPIC_API_KEY")
        model = cfg_a.cheap_model if cheap and cfg_a.cheap_model else cfg_a.model
        return AnthropicProvider(
            session, api_key=cfg_a.api_key.get_secret_value(), model=model, base_url=cfg_a.base_url
        )
    raise ProviderError(name, "unknown provider; use local, openai, anthropic or client")
