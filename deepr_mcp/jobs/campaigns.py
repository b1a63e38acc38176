"""Campaign use cases: what a tool (or the terminal) asks of the jobs domain, one method each.

A handler validates its input and calls one of these; they talk to the store, the job manager
and the feed, and know no MCP types. Following a campaign is always the feed's ``follow``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from deepr_mcp.config import Settings
from deepr_mcp.errors import Conflict, DeeprError, NotFound, QuotaExceeded
from deepr_mcp.jobs.engines import Engines
from deepr_mcp.jobs.feed import CampaignFeed
from deepr_mcp.jobs.manager import JobManager
from deepr_mcp.jobs.models import TERMINAL_PHASES, Campaign
from deepr_mcp.jobs.request import CampaignRequest
from deepr_mcp.jobs.store import CampaignStore, OpenLimitReached
from deepr_mcp.jobs.waiting import ProgressFn, Until, wait_for_campaign
from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.sandbox import SandboxManager

logger = logging.getLogger(__name__)

Spawn = Callable[..., None]
"""Runs ``func(*args)`` in the background for as long as the process serves."""


EMPTY_CORPUS = (
    "the research corpus is empty, so a campaign would have nothing to read or cite; nothing was started. "
    "Add documents first: corpus_add with a path (a file or folder of .md .txt .rst .html .pdf; over HTTP only "
    "under the configured corpus roots), 'deepr-mcp corpus add PATH' on the server's machine, or the bundled "
    "sample (six CC0 documents on submarine cables) by asking for it: corpus_add with sample=true"
)


class CorpusNotEmpty:
    """Refuses research on an empty corpus and says how to add documents: nothing is added unasked."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus

    async def __call__(self) -> None:
        stats = await anyio.to_thread.run_sync(self.corpus.stats)
        if stats["documents"] == 0:
            raise Conflict(EMPTY_CORPUS)


async def finish_deletions(store: CampaignStore, sandboxes: SandboxManager) -> list[str]:
    """At startup: finish deletions a stopped process began, and remove sandboxes that have no record.

    The sandbox folders are listed before the records are read: a campaign's record is made
    before its sandbox, so a folder listed first whose id is not among the records is an orphan
    (of a crash, or of a version that deleted the record first), never a campaign being started.
    """
    for campaign_id in await anyio.to_thread.run_sync(sandboxes.pending_deletions):
        with contextlib.suppress(NotFound):
            await store.delete(campaign_id)
        try:
            await anyio.to_thread.run_sync(sandboxes.finish_delete, campaign_id)
        except OSError as exc:  # the record is gone; the files go on a later start
            logger.warning("deleted campaign %s: its sandbox could not be removed yet: %s", campaign_id, exc)
    folders = await anyio.to_thread.run_sync(sandboxes.ids)
    orphans = sorted(folders - await store.ids())
    for campaign_id in orphans:
        try:
            await anyio.to_thread.run_sync(sandboxes.remove, campaign_id)
        except (DeeprError, OSError) as exc:  # left for the next start; serving matters more
            logger.warning("sandbox %s has no campaign and could not be removed: %s", campaign_id, exc)
    if orphans:
        logger.info("removed %d sandboxes without a campaign: %s", len(orphans), ", ".join(orphans))
    return orphans


class Campaigns:
    def __init__(
        self,
        settings: Settings,
        *,
        store: CampaignStore,
        jobs: JobManager,
        feed: CampaignFeed,
        engines: Engines,
        sandboxes: SandboxManager,
        require_documents: Callable[[], Awaitable[None]],
        spawn: Spawn,
    ) -> None:
        self.settings = settings
        self.store = store
        self.jobs = jobs
        self.feed = feed
        self.engines = engines
        self.sandboxes = sandboxes
        self.require_documents = require_documents
        self.spawn = spawn

    async def start(
        self,
        request: CampaignRequest,
        *,
        owner: str | None = None,
        principal: str = "local",
        expert_id: str | None = None,
        as_task: bool = False,
        task_ttl_ms: int | None = None,
        progress: ProgressFn | None = None,
    ) -> Campaign:
        """Start ``request`` (already validated: every way in builds a ``CampaignRequest``) in the background;
        with ``progress``, report every change to it until the campaign ends.

        An empty corpus is refused (``Conflict`` naming the ways to add documents) before anything is made.
        """
        await self.require_documents()
        try:
            campaign = await self.jobs.start(
                request.question,
                budget=request.budget if request.budget is not None else self.settings.budget.default,
                provider=self.settings.provider,
                model=self.engines.model_name(),
                owner_connection=owner,
                principal=principal,
                expert_id=expert_id,
                max_sub_questions=request.max_sub_questions,
                as_task=as_task,
                task_ttl_ms=task_ttl_ms,
                queries=request.queries,
                max_open=self.settings.jobs.max_open_per_principal,  # checked and admitted in one step
            )
        except OpenLimitReached as full:
            raise QuotaExceeded(
                f"principal {principal!r} has {full.open_now} unfinished campaigns, the most one principal may "
                "have (setting jobs.max_open_per_principal); nothing was started: wait for one to finish, or "
                "cancel one with campaign_cancel"
            ) from None
        # its sandbox exists as soon as its id is known, queued or not: an agent may write notes there at once
        await anyio.to_thread.run_sync(self.sandboxes.create, campaign.id)
        if progress is not None:
            self.spawn(self.report_progress, campaign.id, progress)
        return campaign

    async def follow_up(
        self, campaign_id: str, request: CampaignRequest, *, owner: str | None, principal: str = "local"
    ) -> Campaign:
        """A new campaign that asks a further question in an earlier one's context."""
        earlier = await self.store.get(campaign_id)
        question = f"{request.question} (following up: {earlier.question})"[:2000]
        return await self.start(request.model_copy(update={"question": question}), owner=owner, principal=principal)

    async def share(self, campaign_id: str, principals: list[str]) -> Campaign:
        """Let other principals see (and, with their scopes, steer) a campaign and its sandbox."""
        return await self.jobs.share(campaign_id, principals)

    async def unshare(self, campaign_id: str, principals: list[str] | None) -> Campaign:
        """Take a share back (``None``: every share); the owner and admins keep access."""
        return await self.jobs.unshare(campaign_id, principals)

    async def delete(self, campaign_id: str) -> None:
        """Only a finished campaign can go; subscribers are told.

        Three steps, each safe to stop after: the sandbox moves to the trash (the durable mark),
        the record goes, the trash is emptied. ``finish_deletions`` completes any mark at startup,
        so a crash at any point leaves neither a record nor files behind once the server is back.
        """
        campaign = await self.store.get(campaign_id)
        if not campaign.terminal:
            raise Conflict(f"campaign {campaign_id} is {campaign.phase.value}; cancel it before deleting it")
        await anyio.to_thread.run_sync(self.sandboxes.begin_delete, campaign_id)
        with contextlib.suppress(NotFound):
            await self.store.delete(campaign_id)
        await anyio.to_thread.run_sync(self.sandboxes.finish_delete, campaign_id)
        await self.feed.announce(campaign_id)

    def estimate(self, question: str, max_sub_questions: int) -> dict[str, Any]:
        return self.engines.estimate(question, max_sub_questions)

    async def wait(
        self, campaign_id: str, *, until: Until, since: int | None, timeout_s: float, progress: ProgressFn
    ) -> dict[str, Any]:
        answer = await wait_for_campaign(
            self.feed, campaign_id, until=until, since=since, timeout_s=timeout_s, progress=progress
        )
        if answer.get("phase") in {
            p.value for p in TERMINAL_PHASES
        }:  # with replicas: its final report is readable here too
            await self.sandboxes.sync.caught_up()
        return answer

    async def report_progress(self, campaign_id: str, send: ProgressFn) -> None:
        """Progress to whoever started a campaign with a progressToken, on every change, until it ends."""
        last = None
        async for campaign in self.feed.follow(campaign_id, "complete", heartbeat_s=30):
            state = (campaign.progress, campaign.phase)
            if state != last:
                last = state
                task = campaign.active_tasks[0] if campaign.active_tasks else ""
                await send(campaign.progress, 1.0, f"{campaign.phase.value} {task}".strip())
