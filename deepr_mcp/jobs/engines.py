"""Making research engines and providers from the settings, and the web tools' clients.

The job manager asks for an engine per campaign; ``cost_estimate`` and ``cost_pricing`` ask for
prices. Nothing here opens or closes anything: the composition root hands in the open HTTP
sessions, corpus and sandboxes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import aiohttp

from deepr_mcp.config import Settings
from deepr_mcp.embedding import shared_embedder
from deepr_mcp.errors import InvalidInput
from deepr_mcp.jobs.models import Campaign
from deepr_mcp.research.corpus.backfill import BackgroundEmbedding
from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.pricing import Pricing
from deepr_mcp.research.providers.base import Provider
from deepr_mcp.research.providers.factory import make_provider
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.research.providers.sampling import Sampler, SamplingProvider
from deepr_mcp.research.retrieval.hybrid import HybridSearch
from deepr_mcp.research.sources import EvidenceSource
from deepr_mcp.research.web import PageFetcher, SearxngSearch
from deepr_mcp.sandbox import SandboxManager


class Engines:
    def __init__(
        self,
        settings: Settings,
        http: aiohttp.ClientSession | None,
        corpus: Corpus,
        sandboxes: SandboxManager,
        sources: Sequence[EvidenceSource] = (),
        sampling: Callable[[Campaign], Sampler] | None = None,
    ) -> None:
        self.settings = settings
        self.sampling = sampling
        """A campaign's way to its clients' models (provider ``client``); ``None``: no client to ask."""
        self.sources = sources
        """Evidence sources asked beside the corpus (``[[research.sources]]``)."""
        self.http = http
        self.corpus = corpus
        self.sandboxes = sandboxes
        self.search = HybridSearch(corpus, shared_embedder(settings.research.embedder))
        """Corpus search and research rank alike (``research.retrieval``); one embedder per process."""
        self.embedding = BackgroundEmbedding(corpus, self.search.embedder)
        """Embeds passages after they are stored; the root runs it, ``corpus_add`` wakes it."""

    def model_name(self) -> str:
        provider = self.settings.provider
        if provider == "openai":
            return self.settings.openai.model
        if provider == "anthropic":
            return self.settings.anthropic.model
        if provider == "client":
            return SamplingProvider.model
        return LocalProvider.model

    def pricing(self) -> Pricing:
        price = self.settings.price
        return Pricing(
            override_model=self.model_name(),
            override_input_per_mtok=price.input_per_mtok,
            override_output_per_mtok=price.output_per_mtok,
        )

    def provider_for(self, campaign: Campaign) -> Provider:
        """The campaign's provider; after optimize_for_cost, the configured cheaper model if any."""
        cheap = campaign.cost_mode == "cheap"
        sampler = self.sampling(campaign) if self.sampling is not None and campaign.provider == "client" else None
        return make_provider(
            self.settings, self.http, campaign.provider, cheap=cheap, embedder=self.search.embedder, sampler=sampler
        )

    def engine_for(self, campaign: Campaign) -> Engine:
        sandbox = self.sandboxes.create(campaign.id)
        return Engine(
            self.corpus,
            self.provider_for(campaign),
            cost_model=self.pricing(),
            sink=sandbox,
            search=self.search,
            sources=self.sources,
            retrieval=self.settings.research.retrieval,
        )

    def estimate(self, question: str, max_sub_questions: int) -> dict[str, Any]:
        state = new_state(question, max_sub_questions=max_sub_questions)
        provider = make_provider(self.settings, self.http, self.settings.provider)
        engine = Engine(self.corpus, provider, cost_model=self.pricing(), sources=self.sources)
        steps = ["plan", *(f"gather:sq{i + 1}" for i in range(max_sub_questions)), "synthesise"]
        per_step = {step: engine.estimate_step_cost(state, step) for step in steps}
        return {
            "provider": self.settings.provider,
            "model": self.model_name(),
            "steps": per_step,
            "total": round(sum(per_step.values()), 6),
            "default_budget": self.settings.budget.default,
        }


class WebAccess:
    """The web tools' clients, refused with the setting to change while the web is off."""

    def __init__(self, settings: Settings, http: aiohttp.ClientSession | None) -> None:
        self.settings = settings
        self.http = http

    def search(self) -> SearxngSearch:
        url = self.settings.web.searxng_url
        if url is None or self.http is None:
            raise InvalidInput("web search is off; set DEEPR_WEB_SEARXNG_URL to a SearXNG instance with JSON enabled")
        return SearxngSearch(self.http, url, timeout_s=self.settings.web.timeout_s)

    def fetcher(self) -> PageFetcher:
        web = self.settings.web
        if not web.fetch_enabled or self.http is None:
            raise InvalidInput("page fetching is off; set DEEPR_WEB_FETCH_ENABLED=true to allow web_fetch")
        return PageFetcher(self.http, max_bytes=web.max_bytes, allow_private=web.allow_private)
