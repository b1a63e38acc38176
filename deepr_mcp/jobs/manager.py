"""Runs campaigns in the background: start, pause, resume, cancel, restart recovery.

The manager owns a task group entered by the server's lifespan. A campaign's task advances
its engine one step at a time and saves the record after every step (one transaction), so
a crash loses at most the step in flight and a restart continues from the last saved one.
Between steps it honours cancel and pause, and checks the next step's cost estimate against
the budget: nothing is spent past the budget without a decision.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from types import TracebackType
from typing import Literal

import anyio
from anyio.abc import TaskGroup

from deepr_mcp.errors import BudgetExceeded, Conflict, DeeprError, InvalidInput
from deepr_mcp.jobs.budget import AskBudget, BudgetDesk, Control
from deepr_mcp.jobs.ending import CampaignEnding
from deepr_mcp.jobs.fair_slots import FairSlots
from deepr_mcp.jobs.feed import CampaignFeed
from deepr_mcp.jobs.lease import CampaignLease, LeaseLost, LocalLease
from deepr_mcp.jobs.models import (
    Campaign,
    CampaignPhase,
    DecisionName,
    utcnow,
)
from deepr_mcp.jobs.steering import save_carried, write_through
from deepr_mcp.jobs.store import CampaignStore, StoreUnavailable
from deepr_mcp.jobs.takeover import ClaimingLease, adopt_orphans, recover
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.models import Phase, tidy_queries

logger = logging.getLogger(__name__)

EngineFactory = Callable[[Campaign], Engine]


class JobManager:
    def __init__(
        self,
        store: CampaignStore,
        feed: CampaignFeed,
        engine_factory: EngineFactory,
        *,
        max_concurrent: int = 2,
        budget_timeout_s: float = 300.0,
        budget_default: DecisionName = "abort",
        ask_budget: AskBudget | None = None,
        step_delay_s: float = 0.0,
        on_finished: Callable[[Campaign], Awaitable[None]] | None = None,
        lease: CampaignLease | None = None,
        max_resumes: int = 3,
        max_running_per_principal: int | None = None,
    ) -> None:
        self.store = store
        self.feed = feed
        self.lease: CampaignLease = lease or LocalLease()
        self.engine_factory = engine_factory
        self.step_delay_s = step_delay_s
        self.on_finished = on_finished
        self.max_resumes = max_resumes
        self._slots = FairSlots(max_concurrent, max_running_per_principal)
        self._controls: dict[str, Control] = {}
        self._here: set[str] = set()
        """Campaigns scheduled or running in this process (a takeover scan leaves them alone)."""
        self._unwatch: Callable[[], None] = lambda: None
        self._locks: dict[str, anyio.Lock] = {}
        self._tg: TaskGroup | None = None
        self._ending = CampaignEnding(store, self._save_carried, engine_factory, on_finished)
        self._desk = BudgetDesk(
            store,
            feed,
            self._controls,
            save=self._save_locked,
            finish=self._finish_locked,
            ask_budget=ask_budget,
            timeout_s=budget_timeout_s,
            default=budget_default,
        )
        self.decide = self._desk.decide
        """Settle the campaign's open budget question (here, or through the record when another replica runs it)."""

    def subscribed(self, campaign_id: str) -> None:
        """A connection here subscribed to the campaign's status: an open budget question is put to it now."""
        if self._tg is not None:
            self._desk.subscribed(self._tg.start_soon, campaign_id)

    async def __aenter__(self) -> JobManager:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        if isinstance(self.lease, ClaimingLease):  # replicas: adopt what no replica holds, now and on
            adopt = partial(self._schedule, recover=True)
            self._tg.start_soon(adopt_orphans, self.store, self.lease, self._here.__contains__, adopt)
            self._unwatch = self._desk.ask_elsewhere(self._tg.start_soon, self._here.__contains__)
            return self
        for campaign in await self.store.unfinished():  # restart recovery (one process holds every lease)
            if await recover(campaign, self._ending, self._save_carried, self.max_resumes):
                self._schedule(campaign.id)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._tg is not None
        self._unwatch()
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(None, None, None)
        self._tg = None

    # -- commands ----------------------------------------------------------------------------

    async def start(
        self,
        question: str,
        *,
        budget: float,
        provider: str,
        model: str,
        owner_connection: str | None = None,
        principal: str = "local",
        expert_id: str | None = None,
        max_sub_questions: int = 5,
        as_task: bool = False,
        task_ttl_ms: int | None = None,
        queries: Sequence[str] = (),
        max_open: int | None = None,
    ) -> Campaign:
        """Create and queue a campaign; ``max_open`` caps ``principal``'s unfinished ones atomically
        (``OpenLimitReached``, nothing created)."""
        if budget <= 0:
            raise InvalidInput(f"budget must be a positive number of dollars, got {budget}")
        state = new_state(question, max_sub_questions=max_sub_questions)
        state.queries = tidy_queries(queries)
        campaign = Campaign(
            question=state.question,
            budget=budget,
            provider=provider,
            model=model,
            owner_connection=owner_connection,
            owner=principal,
            expert_id=expert_id,
            research=state,
            active_tasks=["waiting for a free worker"],
            is_task=as_task,
            task_ttl_ms=task_ttl_ms,
        )
        campaign = await self.store.create(campaign, max_open=max_open)
        await self.feed.announce(campaign.id)
        self._schedule(campaign.id)
        return campaign

    async def cancel(self, campaign_id: str) -> Campaign:
        async with self._lock(campaign_id):
            campaign = await self.store.get(campaign_id)
            if campaign.terminal:
                raise Conflict(f"campaign {campaign_id} is already {campaign.phase.value}; nothing to cancel")
            if self._elsewhere(campaign):  # its runner (or whoever takes it over) applies it
                return await self._request(campaign_id, "cancel")
            control = self._controls.setdefault(campaign_id, Control())
            control.cancel = True
            control.decided.set()
            if control.running:
                return campaign  # its task stops at the next step boundary and records it
            return await self._ending.finish(campaign, CampaignPhase.CANCELLED, "cancelled before it ran to completion")

    async def pause(self, campaign_id: str) -> Campaign:
        async with self._lock(campaign_id):
            campaign = await self.store.get(campaign_id)
            if campaign.terminal or campaign.phase == CampaignPhase.PAUSED:
                raise Conflict(f"campaign {campaign_id} is {campaign.phase.value}; only a running or queued one pauses")
            if self._elsewhere(campaign):
                return await self._request(campaign_id, "pause")
            control = self._controls.setdefault(campaign_id, Control())
            control.pause = True
            if control.running:
                return campaign
            campaign.paused_from, campaign.phase = campaign.phase, CampaignPhase.PAUSED
            campaign.active_tasks = []
            return await self._save_carried(campaign)

    async def resume(self, campaign_id: str) -> Campaign:
        def change(campaign: Campaign) -> None:
            if campaign.phase != CampaignPhase.PAUSED:
                raise Conflict(f"campaign {campaign_id} is {campaign.phase.value}; only a paused campaign resumes")
            campaign.phase, campaign.paused_from = CampaignPhase.QUEUED, None
            campaign.active_tasks = ["waiting for a free worker"]
            campaign.requested = None  # a pause asked on another replica is over

        async with self._lock(campaign_id):
            campaign = await write_through(self.store, campaign_id, change, self.feed.announce)
        self._controls.pop(campaign_id, None)
        self._schedule(campaign_id)
        return campaign

    async def set_budget(self, campaign_id: str, budget: float) -> Campaign:
        def change(campaign: Campaign) -> None:
            if campaign.terminal:
                raise Conflict(f"campaign {campaign_id} is {campaign.phase.value}; its budget no longer matters")
            if budget <= campaign.cost:
                raise InvalidInput(f"budget ${budget:.4f} must exceed the ${campaign.cost:.4f} already spent")
            campaign.budget = budget

        async with self._lock(campaign_id):
            return await write_through(self.store, campaign_id, change, self.feed.announce)

    async def share(self, campaign_id: str, principals: list[str]) -> Campaign:
        """Add to who may see a campaign (a compare-and-set: a running step's save keeps it)."""

        def change(campaign: Campaign) -> None:
            campaign.shared_with = sorted(set(campaign.shared_with) | set(principals))

        async with self._lock(campaign_id):
            return await write_through(self.store, campaign_id, change, self.feed.announce)

    def _elsewhere(self, campaign: Campaign) -> bool:
        """Whether another replica runs (or will take over) ``campaign``: then a request goes through the record."""
        shared = isinstance(self.lease, ClaimingLease)
        return shared and campaign.id not in self._here and campaign.phase != CampaignPhase.PAUSED

    async def _request(self, campaign_id: str, what: Literal["cancel", "pause"]) -> Campaign:
        def change(campaign: Campaign) -> None:
            if campaign.terminal or campaign.phase == CampaignPhase.PAUSED:
                raise Conflict(f"campaign {campaign_id} is {campaign.phase.value} now; nothing to {what}")
            if campaign.requested != "cancel":  # a cancel is never turned back into a pause
                campaign.requested = what

        return await write_through(self.store, campaign_id, change, self.feed.announce)

    async def unshare(self, campaign_id: str, principals: list[str] | None) -> Campaign:
        """Take back a share from ``principals`` (``None``: from everyone); a compare-and-set, as ``share``."""

        def change(campaign: Campaign) -> None:
            kept = set() if principals is None else set(campaign.shared_with) - set(principals)
            campaign.shared_with = sorted(kept)

        async with self._lock(campaign_id):
            return await write_through(self.store, campaign_id, change, self.feed.announce)

    # -- the campaign task -------------------------------------------------------------------

    def _schedule(self, campaign_id: str, *, recover: bool = False) -> None:
        assert self._tg is not None, "JobManager used outside its lifespan"
        self._here.add(campaign_id)
        self._tg.start_soon(self._run, campaign_id, recover)

    async def _run(self, campaign_id: str, adopted: bool = False) -> None:
        try:
            owner = (await self.store.get(campaign_id)).owner
        except DeeprError as exc:  # gone, or quarantined, before it could run
            logger.warning("campaign %s not run: %s", campaign_id, exc.message)
            self._here.discard(campaign_id)
            return
        try:
            async with self.lease.hold(campaign_id), self._slots.hold(owner):
                if adopted and not await recover(
                    await self.store.get(campaign_id), self._ending, self._save_carried, self.max_resumes
                ):
                    return
                await self._run_held(campaign_id)
        except LeaseLost as exc:  # another replica took it over: it writes from now on, not this one
            logger.warning("campaign %s: %s", campaign_id, exc.message)
        finally:
            self._here.discard(campaign_id)

    def _lost(self, campaign_id: str) -> bool:
        return isinstance(self.lease, ClaimingLease) and self.lease.lost(campaign_id)

    async def _run_held(self, campaign_id: str) -> None:
        control = self._controls.setdefault(campaign_id, Control())
        control.running = True
        try:
            await self._drive(campaign_id, control)
        except LeaseLost:
            raise
        except StoreUnavailable as exc:  # nothing was written: a replica resumes it once the store is back
            logger.warning(
                "campaign %s stopped by a store outage (%s); resumed once its lease expires", campaign_id, exc
            )
        except DeeprError as exc:
            await self._ending.fail_contained(campaign_id, exc.message)
        except Exception as exc:
            logger.exception("campaign %s failed", campaign_id)
            await self._ending.fail_contained(campaign_id, f"internal error: {type(exc).__name__}")
        finally:
            control.running = False

    async def _drive(self, campaign_id: str, control: Control) -> None:
        campaign = await self.store.get(campaign_id)
        if campaign.terminal or campaign.phase == CampaignPhase.PAUSED:
            return
        engine = self.engine_factory(campaign)
        if campaign.started_at is None:
            campaign.started_at = utcnow()
        while True:
            async with self._lock(campaign_id):
                campaign = await self.store.get(campaign_id)
                if campaign.requested == "cancel":  # asked on another replica
                    control.cancel = True
                elif campaign.requested == "pause":
                    control.pause = True
                if control.cancel:
                    await self._ending.finish(campaign, CampaignPhase.CANCELLED, "cancelled", engine_partial=True)
                    return
                if control.pause:
                    campaign.paused_from, campaign.phase = campaign.phase, CampaignPhase.PAUSED
                    campaign.active_tasks = []
                    await self._save_carried(campaign)
                    control.pause = False
                    return
            step = engine.next_step(campaign.research)
            if step is None:
                await self._finish_locked(campaign, CampaignPhase.COMPLETE, None)
                return
            estimate = engine.estimate_step_cost(campaign.research, step)
            if campaign.cost + estimate > campaign.budget:
                outcome = await self._desk.question(campaign, control, step, estimate)
                if outcome == "stop":
                    return
                if outcome == "again":
                    engine = self.engine_factory(await self.store.get(campaign_id))
                continue
            phase = CampaignPhase(engine.phase_for(step).value)
            task = [engine.describe(campaign.research, step) or step]
            if campaign.phase != phase or campaign.active_tasks != task:
                # Usually the previous step's save already announced this; saving only on a real
                # change keeps one version (and one wake-up for followers) per step.
                campaign.phase, campaign.active_tasks = phase, task
                campaign = await self._save_locked(campaign)
            if self.step_delay_s:
                await anyio.sleep(self.step_delay_s)
            if self._lost(campaign_id):  # taken over meanwhile: the new holder runs this step
                raise LeaseLost(f"campaign {campaign_id} is now run by another replica; stopping before {step}")
            engine.spend_limit = campaign.budget
            try:
                await engine.run_step(campaign.research, step)
            except BudgetExceeded:
                # The prompt came out bigger than estimated: nothing was sent; ask before spending.
                campaign = await self.store.get(campaign_id)
                outcome = await self._desk.question(campaign, control, step, campaign.budget - campaign.cost + 1e-6)
                if outcome == "stop":
                    return
                if outcome == "again":
                    engine = self.engine_factory(await self.store.get(campaign_id))
                continue
            event = engine.event(campaign.research)  # describes the next step
            campaign.progress = event.progress
            campaign.resumes_without_progress = 0
            if event.phase != Phase.COMPLETE:
                campaign.phase = CampaignPhase(event.phase.value)
                campaign.active_tasks = [event.active_task] if event.active_task else []
            campaign = await self._save_locked(campaign)  # keeps a campaign_share made during the step

    async def _finish_locked(
        self, campaign: Campaign, phase: CampaignPhase, reason: str | None, **kw: bool
    ) -> Campaign:
        async with self._lock(campaign.id):  # as _save_locked: a share made meanwhile is kept, never overwritten
            return await self._ending.finish(campaign, phase, reason, **kw)

    async def _save_locked(self, campaign: Campaign, *, keep_budget: bool = True) -> Campaign:
        """The running task's saves take the lock ``share`` holds, so neither overwrites the other's change."""
        async with self._lock(campaign.id):
            return await self._save_carried(campaign, keep_budget=keep_budget)

    async def _save_carried(self, campaign: Campaign, *, keep_budget: bool = True) -> Campaign:
        """A save that keeps what commands (here or on another replica) changed meanwhile; see ``steering``."""
        return await save_carried(self.store, campaign, self._save, keep_budget=keep_budget)

    async def _save(self, campaign: Campaign, *, expected_version: int | None = None) -> Campaign:
        saved = await self.store.save(campaign, expected_version=expected_version)
        await self.feed.announce(saved.id)
        return saved

    def _lock(self, campaign_id: str) -> anyio.Lock:
        return self._locks.setdefault(campaign_id, anyio.Lock())
