"""The composition root: every long-lived resource of one server process, opened and closed here.

It only composes: it opens the stores, the bus and its listeners, the HTTP sessions and the job
manager in order, hands each its collaborators through its constructor, and closes them in
reverse. It holds no use case (those are in ``jobs/``) and no handler sees it: tools get
``ToolServices``, the MCP handlers get ``Surface``. The transports never build services:
stdio, streamable HTTP and legacy SSE all serve one ``Root``, so a campaign started over one
is visible on the others. Entered once; a second entry or a use after closing is refused.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Literal

import aiohttp
import anyio
from mcp.server.subscriptions import InMemorySubscriptionBus, SubscriptionBus

from deepr_mcp.app.connections import ConnectionRegistry
from deepr_mcp.app.surface import Surface
from deepr_mcp.auth.access import Access
from deepr_mcp.config import Settings
from deepr_mcp.elicitation.handler import ElicitationHandler
from deepr_mcp.embedding import shared_embedder
from deepr_mcp.experts.feeding import FeedExperts
from deepr_mcp.experts.store import ExpertStore, SqliteExpertStore
from deepr_mcp.gateway.gateway import Gateway
from deepr_mcp.gateway.registry import ToolRegistry
from deepr_mcp.gateway.tool_model import tool_embedder
from deepr_mcp.gateway.vectors import ToolVectors
from deepr_mcp.jobs.background import contained
from deepr_mcp.jobs.campaigns import Campaigns, CorpusNotEmpty, Spawn, finish_deletions
from deepr_mcp.jobs.engines import Engines, WebAccess
from deepr_mcp.jobs.feed import CampaignFeed
from deepr_mcp.jobs.lease import CampaignLease, LocalLease
from deepr_mcp.jobs.manager import JobManager
from deepr_mcp.jobs.models import Campaign
from deepr_mcp.jobs.notifier import Notifier
from deepr_mcp.jobs.store import CampaignStore, SqliteCampaignStore
from deepr_mcp.objects import MemoryObjectStore, Objects
from deepr_mcp.replication.follower import Follower
from deepr_mcp.replication.journal import Journal
from deepr_mcp.replication.sync import LocalSync, ReplicaSync
from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.web import make_session
from deepr_mcp.sampling.channel import ClientSampling
from deepr_mcp.sandbox import SandboxManager
from deepr_mcp.tools import all_tools
from deepr_mcp.tools.context import ToolServices
from deepr_mcp.upstreams.pool import Upstreams
from deepr_mcp.upstreams.research_source import make_sources

Lifecycle = Literal["new", "open", "closed"]


class Root:
    """Opened once per process by the lifespan; closed in reverse order of opening."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.state: Lifecycle = "new"
        self.registry = ToolRegistry(all_tools())
        self.gateway = Gateway(self.registry, settings.gateway.mode, pinned=settings.gateway.pinned)
        limits = settings.objects
        self.objects = Objects(
            MemoryObjectStore(
                ttl_s=limits.ttl_s,
                max_bytes_per_owner=limits.max_bytes_per_owner,
                max_total_bytes=limits.max_total_bytes,
            ),
            threshold_bytes=limits.threshold_bytes,
            preview_chars=limits.preview_chars,
            max_object_bytes=limits.max_object_bytes,
            ttl_s=limits.ttl_s,
        )
        self.gateway.objects = self.objects
        self._stack = AsyncExitStack()

    async def __aenter__(self) -> Root:
        if self.state != "new":
            raise RuntimeError(f"the composition root is entered once; it is {self.state}")
        self.state = "open"
        try:
            await self._open(await self._stack.__aenter__())
        except BaseException as exc:
            await self.__aexit__(type(exc), exc, exc.__traceback__)
            raise
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.state == "open":
            self.state = "closed"
            await self._stack.__aexit__(exc_type, exc, tb)

    async def ready(self) -> Surface:
        """The handlers' view, once open (``build_server`` takes an open root or an ``Opening``)."""
        if self.state != "open":
            raise RuntimeError(f"the composition root is {self.state}; serve it once it is open")
        return self.surface

    async def _open(self, stack: AsyncExitStack) -> None:
        """Open in dependency order (stores, fan-out, outbound HTTP, jobs); ``stack`` closes in reverse."""
        self._open_stores(stack)
        await self._open_shared(stack)
        await finish_deletions(self.store, self.sandboxes)
        await self._open_fanout(stack)
        web_http = await self._open_http(stack)
        await self._open_upstreams(stack)
        background = await stack.enter_async_context(anyio.create_task_group())
        # Closing cancels what was spawned (task watchers follow a campaign until it ends, which
        # never happens once the job manager is closed): without it, shutdown waits forever.
        stack.callback(background.cancel_scope.cancel)
        for follower in self.followers:
            background.start_soon(follower.run)
        await self._open_jobs(stack, contained(background.start_soon), web_http)
        # Passages added before a restart, by the CLI or by another replica get their vectors here.
        contained(background.start_soon)(self.engines.embedding.run)

    def _open_stores(self, stack: AsyncExitStack) -> None:
        settings = self.settings
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self._open_tool_vectors(stack)
        if settings.store.url is None:  # else _open_shared opens the shared stores and lease
            self.store: CampaignStore = SqliteCampaignStore(settings.data_dir / "campaigns.db")
            stack.callback(self.store.close)
            self.lease: CampaignLease = LocalLease()
            self.experts: ExpertStore = SqliteExpertStore(settings.data_dir / "experts.db")
            stack.callback(self.experts.close)
        self.corpus = Corpus(
            settings.data_dir / "corpus.db",
            max_bytes=settings.corpus.max_file_bytes,
            pdf_memory_bytes=settings.corpus.pdf_reader_memory_bytes,
        )
        stack.callback(self.corpus.close)
        self.sandboxes = SandboxManager(
            settings.data_dir / "sandboxes",
            max_bytes=settings.sandbox.max_bytes,
            max_files=settings.sandbox.max_files,
            max_depth=settings.sandbox.max_depth,
        )

    def _open_tool_vectors(self, stack: AsyncExitStack) -> None:
        """tool_search by meaning too: the shared embedder (its int8 form) over every tool, in the background."""
        embedder = tool_embedder(shared_embedder(self.settings.research.embedder))
        if embedder.dimensions <= 0:
            return
        vectors = ToolVectors(embedder, self.settings.data_dir / "tool-vectors")
        self.registry.use_vectors(vectors)
        stack.callback(vectors.close)

    async def _open_shared(self, stack: AsyncExitStack) -> None:
        """With ``store.url``: campaigns, experts, leases and the corpus and sandbox logs in Redis, shared by
        every replica on that URL."""
        store = self.settings.store
        self.followers: list[Follower] = []
        self.corpus_sync: ReplicaSync = LocalSync()
        """The corpus follower with a shared store: corpus_add and corpus_remove say when theirs is not yet shared."""
        key = store.request_state_key
        self.request_state_key: str | None = key.get_secret_value() if key is not None else None
        if store.url is None:
            return
        from deepr_mcp.redis.campaigns import RedisCampaignStore
        from deepr_mcp.redis.client import open_checked
        from deepr_mcp.redis.experts import RedisExpertStore
        from deepr_mcp.redis.lease import RedisLease
        from deepr_mcp.redis.log import RedisChangeLog
        from deepr_mcp.redis.objects import RedisObjectStore

        password = store.password.get_secret_value() if store.password else None
        client = await open_checked(store.url, password, "deepr:")
        stack.push_async_callback(client.aclose)
        self.lease = RedisLease(client, url=store.url, lease_s=store.lease_s)
        self.store = RedisCampaignStore(client, url=store.url, fence_of=self.lease.fence_of)
        self._shared_client = client
        if self.request_state_key is None:  # a retry may land on any replica: they share one key
            from deepr_mcp.app.request_state import shared_key

            self.request_state_key = await shared_key(client)
        self.experts = RedisExpertStore(client, url=store.url)
        limits = self.settings.objects  # an @obj_ reference made on one replica resolves on every one
        self.objects.store = RedisObjectStore(
            client,
            url=store.url,
            ttl_s=limits.ttl_s,
            max_bytes_per_owner=limits.max_bytes_per_owner,
            max_total_bytes=limits.max_total_bytes,
        )
        self.corpus.share()  # each replica keeps its own index; adds and removals travel through the log
        corpus_log = RedisChangeLog(client, url=store.url, key="deepr:corpus:log")
        self.corpus_sync = corpus_follower = Follower("corpus", self.corpus, corpus_log, catch_up_s=store.catch_up_s)
        self.followers.append(corpus_follower)
        journal = Journal(self.settings.data_dir / "sandbox_journal.db")  # every replica holds every sandbox
        stack.callback(journal.close)
        self.sandboxes.share(journal)
        sandbox_log = RedisChangeLog(client, url=store.url, key="deepr:sandbox:log")
        sandbox_follower = Follower("sandbox", self.sandboxes, sandbox_log, catch_up_s=store.catch_up_s)
        self.sandboxes.sync = sandbox_follower  # a write is in Redis before it is acknowledged
        self.followers.append(sandbox_follower)

    async def _open_fanout(self, stack: AsyncExitStack) -> None:
        """The bus, and its listeners: the Notifier (pushes) and the campaign feed (waiters)."""
        self.bus: SubscriptionBus = InMemorySubscriptionBus()
        if self.settings.store.url is not None:  # every replica's changes reach this one's subscribers
            from deepr_mcp.redis.bus import RedisSubscriptionBus

            url = self.settings.store.url
            self.bus = await stack.enter_async_context(RedisSubscriptionBus(self._shared_client, url=url))
        subs = self.settings.subscriptions
        self.notifier = await stack.enter_async_context(
            Notifier(
                self.bus,
                send_timeout_s=subs.send_timeout_s,
                max_subscriptions_per_connection=subs.max_per_connection,
                max_subscriptions_per_principal=subs.max_per_principal,
                writers=subs.writers,
            )
        )
        count = self.notifier.subscriber_count
        if self.settings.store.url is not None:  # status reports every live replica's subscribers
            from deepr_mcp.redis.counts import ClusterCounts

            cluster = await stack.enter_async_context(
                ClusterCounts(
                    self._shared_client,
                    url=self.settings.store.url,
                    local=self.notifier.counts,
                    held=self.notifier.held,
                    ttl_s=self.settings.store.lease_s,
                )
            )
            self.notifier.held_elsewhere = cluster.held_elsewhere  # the principal's cap spans the replicas

            def count(uri: str) -> int:
                return self.notifier.subscriber_count(uri) + cluster.elsewhere(uri)

        self.feed = CampaignFeed(self.store, self.bus, subscriber_count=count)
        stack.callback(self.feed.close)

    async def _open_http(self, stack: AsyncExitStack) -> aiohttp.ClientSession | None:
        """The providers' shared session, and the web tools' guarded one when the web is on."""
        self.http = await stack.enter_async_context(
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120), raise_for_status=False)
        )
        web = self.settings.web
        if not (web.searxng_url or web.fetch_enabled):
            return None
        return await stack.enter_async_context(make_session(allow_private=web.allow_private, timeout_s=web.timeout_s))

    async def _open_upstreams(self, stack: AsyncExitStack) -> None:
        """Federated MCP servers: their tools join the registry; sessions open on first use."""
        self.upstreams = await stack.enter_async_context(
            Upstreams(self.settings.upstreams, self.registry, self.settings.data_dir / "upstreams")
        )
        if self.settings.upstreams:
            self.gateway.prepare = self.upstreams.prepare
            self.gateway.upstream_status = self.upstreams
        self.sources = make_sources(self.settings.research.sources, self.upstreams)

    def _on_finished(self) -> Callable[[Campaign], Awaitable[None]]:
        """Before a finished campaign is saved (and so announced): feed its experts, and put its sandbox
        (the final report) in the shared log, so no replica says it is finished before it can read it."""
        feed_experts = FeedExperts(self.experts, self.feed)

        async def on_finished(campaign: Campaign) -> None:
            await feed_experts(campaign)
            await self.sandboxes.sync.durable()

        return on_finished

    def _subscriber_ids(self, uri: str) -> list[str]:
        """The connections subscribed to a campaign resource: who else may be asked for it."""
        return [s.connection_id for s in self.notifier.subscribers_of(uri)]

    async def _open_jobs(self, stack: AsyncExitStack, spawn: Spawn, web_http: aiohttp.ClientSession | None) -> None:
        """The job manager (it resumes unfinished campaigns on entry), its use cases and the handlers' views."""
        settings = self.settings
        self.connections = ConnectionRegistry()
        subscribers = self._subscriber_ids
        sampling = ClientSampling(
            self.connections.get,
            subscribers,
            timeout_s=settings.research.sampling_timeout_s,
            principal_of=self.connections.principal_of,
        )
        self.engines = Engines(
            settings, self.http, self.corpus, self.sandboxes, sources=self.sources, sampling=sampling.for_campaign
        )
        # An upstream's tools changed: clients that re-read tools/list (full and search modes) are told.
        self.upstreams.on_change = lambda: spawn(self.connections.broadcast, "notifications/tools/list_changed")
        elicitation = ElicitationHandler(
            self.connections.get,
            subscribers,
            timeout_s=settings.budget.timeout_s,
            principal_of=self.connections.principal_of,
        )
        self.jobs = await stack.enter_async_context(
            JobManager(
                self.store,
                self.feed,
                self.engines.engine_for,
                max_concurrent=settings.jobs.max_concurrent,
                max_running_per_principal=settings.jobs.max_running_per_principal,
                budget_timeout_s=settings.budget.timeout_s,
                budget_default=settings.budget.default_decision,
                ask_budget=elicitation.ask,
                step_delay_s=settings.jobs.step_delay_s,
                on_finished=self._on_finished(),
                lease=self.lease,
                max_resumes=settings.jobs.max_resumes,
            )
        )
        self.campaigns = Campaigns(
            settings,
            store=self.store,
            jobs=self.jobs,
            feed=self.feed,
            engines=self.engines,
            sandboxes=self.sandboxes,
            require_documents=CorpusNotEmpty(self.corpus),
            spawn=spawn,
        )
        self.tools = ToolServices(
            settings=settings,
            registry=self.registry,
            campaigns=self.campaigns,
            jobs=self.jobs,
            store=self.store,
            feed=self.feed,
            experts=self.experts,
            corpus=self.corpus,
            sandboxes=self.sandboxes,
            engines=self.engines,
            web=WebAccess(settings, web_http),
            objects=self.objects,
            corpus_sync=self.corpus_sync,
        )
        self.access = Access(self.store, self.experts)
        self.gateway.authorize = lambda ctx, spec, arguments: self.access.authorize(
            ctx.principal, spec.name, spec.scope, spec.ownership, arguments
        )
        self.surface = Surface(
            tools=self.tools,
            gateway=self.gateway,
            bus=self.bus,
            notifier=self.notifier,
            connections=self.connections,
            spawn=spawn,
            access=self.access,
            request_state_key=self.request_state_key,
        )
