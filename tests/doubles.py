"""In-memory doubles of the seams, for unit tests of what is built on them: campaign store, engine, bus."""

from __future__ import annotations

from typing import Any


class MemoryCampaignStore:
    """A campaign store in a dict, for unit tests of what is built on the store seam.

    Saves bump the version and return a copy, as the SQLite store does, so a test sees the same
    versioning the feed and the manager rely on.
    """

    def __init__(self, *campaigns: Any) -> None:
        self.records: dict[str, Any] = {}
        self.saves = 0
        for campaign in campaigns:
            self.records[campaign.id] = campaign.model_copy(deep=True)

    async def get(self, campaign_id: str) -> Any:
        from deepr_mcp.errors import NotFound

        if campaign_id not in self.records:
            raise NotFound(f"no campaign {campaign_id!r}")
        return self.records[campaign_id].model_copy(deep=True)

    async def create(self, campaign: Any, *, max_open: int | None = None) -> Any:
        from deepr_mcp.jobs.store import OpenLimitReached

        if max_open is not None:
            held = sum(1 for c in self.records.values() if c.owner == campaign.owner and not c.terminal)
            if held >= max_open:
                raise OpenLimitReached(campaign.owner, held)
        return await self.save(campaign)

    async def save(self, campaign: Any, *, expected_version: int | None = None) -> Any:
        self.saves += 1
        stored = campaign.model_copy(deep=True, update={"version": campaign.version + 1})
        self.records[campaign.id] = stored
        return stored.model_copy(deep=True)

    async def list(self, *, phases: Any = None, limit: int = 20, offset: int = 0) -> tuple[list[Any], int]:
        items = list(self.records.values())
        return [c.model_copy(deep=True) for c in items[offset : offset + limit]], len(items)

    async def unfinished(self) -> list[Any]:
        return [c.model_copy(deep=True) for c in self.records.values() if not c.terminal]

    async def delete(self, campaign_id: str) -> None:
        self.records.pop(campaign_id, None)

    async def ids(self) -> set[str]:
        return set(self.records)

    def close(self) -> None:
        return None


def new_campaign(question: str = "Why did the first transatlantic telegraph cable fail?", **fields: Any) -> Any:
    """A queued campaign record with a planned research state, as ``JobManager.start`` makes one."""
    from deepr_mcp.jobs.models import Campaign
    from deepr_mcp.research.engine import new_state

    state = new_state(question, max_sub_questions=fields.pop("max_sub_questions", 3))
    defaults: dict[str, Any] = {"budget": 1.0, "provider": "local", "model": "local-extractive"}
    return Campaign(question=state.question, research=state, **{**defaults, **fields})


class BusRecorder:
    """Subscribes to a subscription bus and remembers every URI published on it, in order."""

    def __init__(self, bus: Any) -> None:
        self.uris: list[str] = []
        self.unsubscribe = bus.subscribe(lambda event: self.uris.append(getattr(event, "uri", repr(event))))


class FakeEngine:
    """A research engine with three steps of known cost, for unit tests of the job manager.

    ``gate`` (when set) holds every step until a test lets it through, so a test can act while
    a step is in flight; ``ran`` lists the steps run, across every engine a factory makes.
    """

    STEPS = ("plan", "gather:sq1", "synthesise")

    def __init__(self, *, step_cost: float = 0.01, ran: list[str] | None = None, gate: Any = None) -> None:
        self.step_cost = step_cost
        self.ran = ran if ran is not None else []
        self.gate = gate
        self.spend_limit: float | None = None
        self.sink = None

    def next_step(self, state: Any) -> str | None:
        return next((s for s in self.STEPS if s not in state.steps_done), None)

    def estimate_step_cost(self, state: Any, step: str) -> float:
        return self.step_cost

    def phase_for(self, step: str | None) -> Any:
        from deepr_mcp.research.models import Phase

        if step is None:
            return Phase.COMPLETE
        return {"plan": Phase.PLANNING, "synthesise": Phase.SYNTHESIZING}.get(step, Phase.EXECUTING)

    def describe(self, state: Any, step: str | None) -> str | None:
        return step

    async def run_step(self, state: Any, step: str) -> None:
        from deepr_mcp.research.models import StepRecord

        if self.gate is not None:
            await self.gate.wait()
        state.steps_done.append(step)
        state.step_records.append(StepRecord(step=step, provider="fake", model="fake", cost=self.step_cost))
        if step == "synthesise":
            state.report = "# Research report\n\nfake"
        self.ran.append(step)

    def event(self, state: Any) -> Any:
        from deepr_mcp.research.models import EngineEvent

        step = self.next_step(state)
        done = len(state.steps_done) / len(self.STEPS)
        return EngineEvent(phase=self.phase_for(step), progress=done, active_task=step)
