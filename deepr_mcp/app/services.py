"""Every long-lived resource of one server process, opened and closed in one place.

The transports never build services: stdio, streamable HTTP and legacy SSE all serve the
same ``Services`` so that a campaign started over one is visible on the others. Opened in
order (stores, notifier, HTTP session, job manager) and closed in reverse.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any

import aiohttp
import anyio

from deepr_mcp.config import Settings
from deepr_mcp.elicitation.handler import ConnectionRegistry, ElicitationHandler
from deepr_mcp.errors import Conflict, InvalidInput, NotFound
from deepr_mcp.gateway.gateway import Gateway
from deepr_mcp.gateway.registry import ToolRegistry
from deepr_mcp.jobs.experts import ExpertStore, absorb
from deepr_mcp.jobs.manager import JobManager
from deepr_mcp.jobs.models import Campaign
from deepr_mcp.jobs.notifier import Notifier
from deepr_mcp.jobs.store import SqliteCampaignStore
from deepr_mcp.jobs.waiting import ProgressFn, Until, wait_for_campaign
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.passages import Corpus
from deepr_mcp.research.pricing import Pricing
from deepr_mcp.research.providers.base import Provider
from deepr_mcp.research.providers.factory import make_provider
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.research.samples import SAMPLE_CORPUS
from deepr_mcp.research.web import PageFetcher, SearxngSearch, make_session
from deepr_mcp.sandbox import SandboxManager
from deepr_mcp.tools import all_tools


class Services:
    """Opened once per process by the lifespan; closed in reverse order of opening."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.registry = ToolRegistry(all_tools())
        self.gateway = Gateway(self.registry, settings.gateway.mode)
        self._stack = AsyncExitStack()
        self.http: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> Services:
        settings = self.settings
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        stack = await self._stack.__aenter__()
        self.store = SqliteCampaignStore(settings.data_dir / "campaigns.db")
        stack.callback(self.store.close)
        self.experts = ExpertStore(settings.data_dir / "experts.db")
        stack.callback(self.experts.close)
        self.corpus = Corpus(settings.data_dir / "corpus.db", max_bytes=settings.corpus.max_file_bytes)
        stack.callback(self.corpus.close)
        self.sandboxes = SandboxManager(
            settings.data_dir / "sandboxes", max_bytes=settings.sandbox.max_bytes, max_files=settings.sandbox.max_files
        )
        subs = settings.subscriptions
        self.notifier = await stack.enter_async_context(
            Notifier(
                send_timeout_s=subs.send_timeout_s,
                max_subscriptions_per_connection=subs.max_per_connection,
                writers=subs.writers,
            )
        )
        self.http = await stack.enter_async_context(
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120), raise_for_status=False)
        )
        self.web_http: aiohttp.ClientSession | None = None
        if settings.web.searxng_url or settings.web.fetch_enabled:
            self.web_http = await stack.enter_async_context(
                make_session(allow_private=settings.web.allow_private, timeout_s=settings.web.timeout_s)
            )
        self._background = await stack.enter_async_context(anyio.create_task_group())
        self.connections = ConnectionRegistry()
        self.jobs = await stack.enter_async_context(
            JobManager(
                self.store,
                self.notifier,
                self.engine_for,
                max_concurrent=settings.jobs.max_concurrent,
                budget_timeout_s=settings.budget.timeout_s,
                budget_default=settings.budget.default_decision,
                step_delay_s=settings.jobs.step_delay_s,
                on_finished=self.feed_expert,
            )
        )
        self.jobs.ask_budget = ElicitationHandler(self.connections, self, timeout_s=settings.budget.timeout_s).ask
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._stack.__aexit__(exc_type, exc, tb)

    # -- research wiring ---------------------------------------------------------------------

    async def delete_campaign(self, campaign_id: str) -> None:
        """Only a finished campaign can go: its record, then its sandbox."""
        campaign = await self.store.get(campaign_id)
        if not campaign.terminal:
            raise Conflict(f"campaign {campaign_id} is {campaign.phase.value}; cancel it before deleting it")
        await self.store.delete(campaign_id)
        if await anyio.to_thread.run_sync(self.sandboxes.exists, campaign_id):
            await anyio.to_thread.run_sync(self.sandboxes.remove, campaign_id)
        self.notifier.changed(campaign_id)

    async def feed_expert(self, campaign: Campaign) -> None:
        """A finished campaign run for an expert adds its beliefs and gaps to that expert."""
        if campaign.expert_id is None:
            return
        try:
            expert = await self.experts.get(campaign.expert_id)
        except NotFound:
            return  # the expert was deleted while its campaign ran
        expert = await self.experts.save(absorb(expert, campaign))
        for uri in expert.uris().values():
            await self.notifier.publish(uri)

    def web_search(self) -> SearxngSearch:
        url = self.settings.web.searxng_url
        if url is None or self.web_http is None:
            raise InvalidInput("web search is off; set DEEPR_WEB_SEARXNG_URL to a SearXNG instance with JSON enabled")
        return SearxngSearch(self.web_http, url, timeout_s=self.settings.web.timeout_s)

    def page_fetcher(self) -> PageFetcher:
        web = self.settings.web
        if not web.fetch_enabled or self.web_http is None:
            raise InvalidInput("page fetching is off; set DEEPR_WEB_FETCH_ENABLED=true to allow web_fetch")
        return PageFetcher(self.web_http, max_bytes=web.max_bytes, allow_private=web.allow_private)

    def provider_for(self, campaign: Campaign) -> Provider:
        """The campaign's provider; after optimize_for_cost, the configured cheaper model if any."""
        return make_provider(self.settings, self.http, campaign.provider, cheap=campaign.cost_mode == "cheap")

    def pricing(self) -> Pricing:
        price = self.settings.price
        return Pricing(
            override_model=self.model_name(),
            override_input_per_mtok=price.input_per_mtok,
            override_output_per_mtok=price.output_per_mtok,
        )

    def engine_for(self, campaign: Campaign) -> Engine:
        sandbox = self.sandboxes.create(campaign.id)
        return Engine(self.corpus, self.provider_for(campaign), cost_model=self.pricing(), sink=sandbox)

    def spawn(self, func: Any, *args: Any) -> None:
        """Run a follower (e.g. a task-status watcher) for as long as the process serves."""
        self._background.start_soon(func, *args)

    async def start_campaign(
        self,
        question: str,
        *,
        budget: float | None = None,
        max_sub_questions: int = 5,
        owner: str | None = None,
        expert_id: str | None = None,
        as_task: bool = False,
        task_ttl_ms: int | None = None,
    ) -> Campaign:
        await self.ensure_sample_corpus()
        return await self.jobs.start(
            question,
            budget=budget if budget is not None else self.settings.budget.default,
            provider=self.settings.provider,
            model=self.model_name(),
            owner_connection=owner,
            expert_id=expert_id,
            max_sub_questions=max_sub_questions,
            as_task=as_task,
            task_ttl_ms=task_ttl_ms,
        )

    def model_name(self) -> str:
        provider = self.settings.provider
        if provider == "openai":
            return self.settings.openai.model
        if provider == "anthropic":
            return self.settings.anthropic.model
        return LocalProvider.model

    async def ensure_sample_corpus(self) -> None:
        """An empty corpus gets the bundled sample, so research works on first run with nothing set up."""
        stats = await anyio.to_thread.run_sync(self.corpus.stats)
        if stats["documents"] == 0:
            await anyio.to_thread.run_sync(self.corpus.add_path, SAMPLE_CORPUS)

    def estimate_campaign(self, question: str, max_sub_questions: int) -> dict[str, Any]:
        state = new_state(question, max_sub_questions=max_sub_questions)
        provider = make_provider(self.settings, self.http, self.settings.provider)
        engine = Engine(self.corpus, provider, cost_model=self.pricing())
        steps = ["plan", *(f"gather:sq{i + 1}" for i in range(max_sub_questions)), "synthesise"]
        per_step = {step: engine.estimate_step_cost(state, step) for step in steps}
        return {
            "provider": self.settings.provider,
            "model": self.model_name(),
            "steps": per_step,
            "total": round(sum(per_step.values()), 6),
            "default_budget": self.settings.budget.default,
        }

    async def report_progress_until_done(self, campaign_id: str, send: ProgressFn) -> None:
        """Progress to whoever started a campaign with a progressToken, on every change, until it ends."""
        last = None
        while True:
            campaign = await self.store.get(campaign_id)
            state = (campaign.progress, campaign.phase)
            if state != last:
                last = state
                task = campaign.active_tasks[0] if campaign.active_tasks else ""
                await send(campaign.progress, 1.0, f"{campaign.phase.value} {task}".strip())
            if campaign.terminal:
                return
            await self.notifier.wait_changed(campaign_id, 30)

    async def wait_for_campaign(
        self, campaign_id: str, *, until: Until, since: int | None, timeout_s: float, progress: ProgressFn
    ) -> dict[str, Any]:
        return await wait_for_campaign(
            self.store, self.notifier, campaign_id, until=until, since=since, timeout_s=timeout_s, progress=progress
        )
