"""Budget questions: ask, wait for an answer from any channel (or any replica), apply it.

The running task saves the question in the record and waits, bounded by the budget timeout,
for the first answer. An answer given where the campaign runs (``budget_decide``, elicitation,
the terminal, the tasks extension) reaches the waiting task directly. An answer given on a
replica that does not run the campaign is written into the record's open question with a
compare-and-set on the record's version (two answers never both win) and announced; the
running replica's task follows the feed (woken by the shared bus) and applies it. Either way
the decision is applied by the one task that spends, so spend never passes the budget in force.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anyio

from deepr_mcp.errors import Conflict, DeeprError, InvalidInput, NotFound
from deepr_mcp.jobs.feed import CampaignFeed
from deepr_mcp.jobs.models import BudgetDecision, BudgetQuestion, Campaign, CampaignPhase, DecisionName
from deepr_mcp.jobs.store import CampaignStore

logger = logging.getLogger(__name__)

AskBudget = Callable[[Campaign, BudgetQuestion, set[str]], Awaitable[BudgetDecision | None]]
"""Puts an open budget question in front of someone who can answer it now (elicitation); returns
their decision, or ``None`` when nobody could be asked (then ``budget_decide`` or the timeout).
The set names the connections this question was already put to here: each is asked once, and the
callee adds every connection it asks."""
Save = Callable[..., Awaitable[Campaign]]
Finish = Callable[..., Awaitable[Campaign]]
CAS_ATTEMPTS = 5
RECORDED_WAIT_S = 10.0
"""How long ``decide`` waits for the running task to write the decision it was handed (a guard: it takes
milliseconds), so that a read right after the answer shows it."""


@dataclass
class Control:
    """In-memory steering of one campaign's task; the record stays the source of truth."""

    cancel: bool = False
    pause: bool = False
    running: bool = False
    decision: BudgetDecision | None = None
    decided: anyio.Event = field(default_factory=anyio.Event)
    recorded: anyio.Event = field(default_factory=anyio.Event)
    """Set once the task has written the decision into the record: ``decide`` answers after it."""
    scope: anyio.CancelScope | None = None


@dataclass
class Asking:
    """This process putting one open question to its capable connections: one at a time, each once."""

    question_id: str
    asked: set[str] = field(default_factory=set)
    busy: bool = False
    again: bool = False
    """A connection subscribed while the asking ran: ask on when the current one did not answer."""
    answered: bool = False
    """A connection here answered: nobody else is asked while that answer is being applied."""


def _no_question(campaign: Campaign) -> Conflict:
    return Conflict(
        f"campaign {campaign.id} has no open budget question (phase {campaign.phase.value}); "
        "it was settled already or never asked"
    )


class BudgetDesk:
    """The job manager's budget questions; ``save``/``finish`` are its locked save and finish."""

    def __init__(
        self,
        store: CampaignStore,
        feed: CampaignFeed,
        controls: dict[str, Control],
        *,
        save: Save,
        finish: Finish,
        ask_budget: AskBudget | None,
        timeout_s: float,
        default: DecisionName,
    ) -> None:
        self.store, self.feed, self.controls = store, feed, controls
        self.save, self.finish = save, finish
        self.ask_budget, self.timeout_s, self.default = ask_budget, timeout_s, default
        self._asking: dict[str, Asking] = {}

    async def decide(
        self,
        campaign_id: str,
        decision: DecisionName,
        *,
        new_budget: float | None = None,
        channel: str,
        answered_by: str,
        principal: str | None = None,
    ) -> Campaign:
        """Settle the campaign's open budget question; a late answer to a settled one is refused."""
        answer = BudgetDecision(
            decision=decision, new_budget=new_budget, channel=channel, answered_by=answered_by, principal=principal
        )
        for _ in range(CAS_ATTEMPTS):
            campaign = await self.store.get(campaign_id)
            question, control = campaign.open_question, self.controls.get(campaign_id)
            if control is not None and not control.running:
                control = None  # left from when it ran here: another replica's task waits for this answer
            if question is None or question.answer is not None or (control is not None and control.decision):
                raise _no_question(campaign)
            if decision == "approve_override":
                if new_budget is None:
                    raise InvalidInput("approve_override needs new_budget, in dollars, above what is already spent")
                if new_budget <= campaign.cost:
                    raise InvalidInput(
                        f"new_budget ${new_budget:.4f} must exceed the ${campaign.cost:.4f} already spent"
                    )
            if control is not None:  # the task that waits for it runs here
                control.decision = answer
                recorded = control.recorded
                control.decided.set()
                with anyio.move_on_after(RECORDED_WAIT_S):  # read-your-writes: the caller's next read shows it
                    await recorded.wait()
                return await self.store.get(campaign_id)
            question.answer = answer  # another replica runs it: hand the answer over through the record
            try:
                saved = await self.store.save(campaign, expected_version=campaign.version)
            except Conflict:
                continue  # the record moved meanwhile: look again
            await self.feed.announce(campaign_id)
            return saved
        raise Conflict(f"campaign {campaign_id} kept changing while the answer was written; try again")

    async def _from_record(self, campaign_id: str, question_id: str, control: Control) -> None:
        """Take an answer written into the record by another replica (the feed wakes on the shared bus)."""
        async for campaign in self.feed.follow(campaign_id, "complete"):
            if campaign.requested == "cancel":  # cancelled on another replica while the question waits
                control.cancel = True
                control.decided.set()
                return
            question = campaign.open_question
            if question is not None and question.id == question_id and question.answer is not None:
                if control.decision is None:
                    control.decision = question.answer
                    control.decided.set()
                return

    async def question(self, campaign: Campaign, control: Control, step: str, estimate: float) -> str:
        """Ask, wait (bounded), apply. Returns "go" (continue), "again" (re-estimate) or "stop"."""
        question = BudgetQuestion(
            id=f"{campaign.id}-q{campaign.decision_count + 1}",
            estimated_cost=round(estimate, 6),
            spent=campaign.cost,
            budget=campaign.budget,
            step=step,
        )
        control.decision, control.decided, control.recorded = None, anyio.Event(), anyio.Event()
        campaign.phase = CampaignPhase.AWAITING_APPROVAL
        campaign.open_question = question
        campaign.active_tasks = [f"waiting for a budget decision (next step costs ~${estimate:.4f})"]
        campaign = await self.save(campaign)
        try:
            async with anyio.create_task_group() as asking:
                if self.ask_budget is not None:  # elicitation, when some connection can be asked
                    asking.start_soon(self._ask, campaign, question)
                asking.start_soon(self._from_record, campaign.id, question.id, control)
                with anyio.move_on_after(self.timeout_s):
                    await control.decided.wait()
                asking.cancel_scope.cancel()  # settled (on any channel) or timed out: withdraw the question
        finally:
            self._asking.pop(campaign.id, None)
        try:
            return await self._apply(campaign, control)
        finally:
            control.recorded.set()  # also when applying failed: a waiting ``decide`` answers from the record

    async def _apply(self, campaign: Campaign, control: Control) -> str:
        """Write the decision (or the cancel, or the timeout's default) into the record and say what next."""
        if control.cancel:
            campaign.open_question = None
            await self.finish(campaign, CampaignPhase.CANCELLED, "cancelled", engine_partial=True)
            return "stop"
        decision = control.decision or BudgetDecision(
            decision=self.default, channel="timeout", answered_by=f"default after {self.timeout_s:g}s"
        )
        control.decision = decision
        campaign = await self.store.get(campaign.id)
        campaign.record_decision(decision)
        campaign.open_question = None
        if decision.decision == "approve_override" and decision.new_budget is not None:
            campaign.budget = decision.new_budget
            await self.save(campaign, keep_budget=False)  # the one save that changes the budget it carries
            return "go"
        if decision.decision == "optimize_for_cost":
            campaign.research.max_sub_questions = min(campaign.research.max_sub_questions, 3)
            campaign.research.passages_per_question = min(campaign.research.passages_per_question, 3)
            campaign.cost_mode = "cheap"
            await self.save(campaign)
            return "again"
        await self.finish(campaign, CampaignPhase.CANCELLED, "aborted at the budget question", engine_partial=True)
        return "stop"

    def ask_elsewhere(self, spawn: Callable[..., object], here: Callable[[str], bool]) -> Callable[[], None]:
        """Replicas: put questions of campaigns run elsewhere to this replica's capable subscribers too.

        On each change heard for a campaign this replica does not run, if it has an open, unanswered
        question, ``ask_budget`` tries this replica's connections (elicitation); an answer goes through
        the record (``decide``). The asking is withdrawn once the question is settled anywhere.
        """
        offering: set[str] = set()

        def heard(campaign_id: str) -> None:
            if self.ask_budget is not None and not here(campaign_id) and campaign_id not in offering:
                offering.add(campaign_id)
                spawn(self._offered, campaign_id, offering)

        return self.feed.watch(heard)

    def subscribed(self, spawn: Callable[..., object], campaign_id: str) -> None:
        """A connection here just subscribed to the campaign: if a question is open, put it to it now.

        As if it had been connected when the question was raised (on this replica or another): asked
        once, after any connection being asked here now; not at the campaign's next change.
        """
        if self.ask_budget is not None:
            spawn(self._offered, campaign_id, set())

    async def _put(self, campaign: Campaign, question: BudgetQuestion) -> BudgetDecision | None:
        """``ask_budget`` with this process's memory of the question: who was asked, and one asking at a time."""
        assert self.ask_budget is not None
        control = self.controls.get(campaign.id)
        if control is not None and control.running and control.decision is not None:
            return None  # decided here, the record not yet saved: nobody is asked again
        state = self._asking.get(campaign.id)
        if state is None or state.question_id != question.id:
            state = self._asking[campaign.id] = Asking(question.id)
        if state.answered:
            return None  # answered here, being applied (``decide`` reads the record first): ask nobody else
        if state.busy:
            state.again = True  # the running asking reaches the newcomer once its current connection fails
            return None
        state.busy = True
        try:
            while True:
                state.again = False
                decision = await self.ask_budget(campaign, question, state.asked)
                if decision is not None:
                    state.answered = True
                if decision is not None or not state.again:
                    return decision
        finally:
            state.busy = False

    async def _offered(self, campaign_id: str, offering: set[str]) -> None:
        """Put the campaign's open question (if any) to this process's capable connections."""
        assert self.ask_budget is not None
        try:
            campaign = await self.store.get(campaign_id)
            question = campaign.open_question
            if question is None or question.answer is not None or campaign.terminal:
                state = self._asking.get(campaign_id)
                if state is not None and not state.busy:
                    del self._asking[campaign_id]  # settled: forget who was asked
                return
            decision: BudgetDecision | None = None
            async with anyio.create_task_group() as tg:

                async def withdraw_when_settled() -> None:
                    async for now in self.feed.follow(campaign_id, "complete"):
                        q = now.open_question
                        if q is None or q.id != question.id or q.answer is not None or now.requested == "cancel":
                            break
                    tg.cancel_scope.cancel()

                tg.start_soon(withdraw_when_settled)
                decision = await self._put(campaign, question)
                tg.cancel_scope.cancel()
            if decision is not None:
                await self.decide(
                    campaign_id,
                    decision.decision,
                    new_budget=decision.new_budget,
                    channel=decision.channel,
                    answered_by=decision.answered_by,
                    principal=decision.principal,
                )
        except NotFound:
            return  # a subscription to a campaign that does not exist (or no longer): nothing to ask
        except DeeprError as exc:  # settled meanwhile, invalid, or the store is down: the runner's timeout stands
            logger.info("budget question of %s asked here not applied: %s", campaign_id, exc.message)
        except Exception:  # spawned in the job manager's task group: never let it end the other campaigns
            logger.exception("asking the budget question of %s here failed", campaign_id)
        finally:
            offering.discard(campaign_id)

    async def _ask(self, campaign: Campaign, question: BudgetQuestion) -> None:
        decision = await self._put(campaign, question)
        if decision is None:
            return
        try:
            await self.decide(
                campaign.id,
                decision.decision,
                new_budget=decision.new_budget,
                channel=decision.channel,
                answered_by=decision.answered_by,
                principal=decision.principal,
            )
        except (Conflict, InvalidInput) as exc:
            logger.info("%s answer for %s not applied: %s", decision.channel, campaign.id, exc.message)
