"""``campaign_delete`` leaves no orphan whatever step it stops at: with the real store and sandbox
manager, a failure is injected between (or inside) the steps, the services are closed and opened
again as a restart does, and neither the record nor any of its files remain."""

from __future__ import annotations

from typing import Any

import pytest

from deepr_mcp.app.root import Root
from deepr_mcp.config import Settings
from deepr_mcp.errors import NotFound
from deepr_mcp.jobs.models import CampaignPhase
from deepr_mcp.sandbox import tree
from tests.doubles import new_campaign
from tests.hostile_trees import plant_hostile_tree, tree_snapshot


class Crash(Exception):
    """Stands for the process stopping at this point."""


def crash(*args: Any, **kwargs: Any) -> None:
    raise Crash("the process stopped here")


async def crash_async(*args: Any, **kwargs: Any) -> None:
    raise Crash("the process stopped here")


async def _finished_campaign(services: Root, *, deep: bool = False) -> str:
    campaign = await services.store.create(new_campaign(phase=CampaignPhase.COMPLETE))
    sandbox = services.sandboxes.create(campaign.id)
    sandbox.write("final_report.md", b"# Report\n")
    sandbox.write("notes/sq1.md", b"note")
    if deep:
        plant_hostile_tree(sandbox.root, 2000)
    return campaign.id


def _inject(services: Root, patch: pytest.MonkeyPatch, point: str) -> None:
    if point == "before the sandbox moves":
        patch.setattr(services.sandboxes, "begin_delete", crash)
    elif point == "after the sandbox moved":
        patch.setattr(services.store, "delete", crash_async)
    elif point == "after the record went":
        patch.setattr(services.sandboxes, "finish_delete", crash)
    elif point == "halfway through removing the files":
        patch.setattr(tree, "_rmdir", crash)  # the first folder emptied, then the stop
    else:
        raise AssertionError(point)


POINTS = [
    "before the sandbox moves",
    "after the sandbox moved",
    "after the record went",
    "halfway through removing the files",
]


@pytest.mark.parametrize("point", POINTS)
async def test_a_crash_at_any_step_leaves_no_orphan_after_a_restart(
    point: str, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandboxes_dir = settings.data_dir / "sandboxes"
    async with Root(settings) as services:
        kept = await _finished_campaign(services)
        doomed = await _finished_campaign(services, deep=point == "after the sandbox moved")
        kept_files = tree_snapshot(sandboxes_dir / kept)
        with monkeypatch.context() as patch:
            _inject(services, patch, point)
            with pytest.raises(Crash):
                await services.campaigns.delete(doomed)

    async with Root(settings) as services:  # the restart
        if point == "before the sandbox moves":  # nothing had happened: both are still there, whole
            assert (await services.store.get(doomed)).phase == CampaignPhase.COMPLETE
            assert services.sandboxes.get(doomed).read("notes/sq1.md")[0] == b"note"
            await services.campaigns.delete(doomed)  # and deleting again works
        with pytest.raises(NotFound):
            await services.store.get(doomed)
        assert not services.sandboxes.exists(doomed)
        assert services.sandboxes.pending_deletions() == []
        assert services.sandboxes.ids() == {kept}
        assert await services.store.ids() == {kept}
    assert sorted(p.name for p in sandboxes_dir.iterdir()) == sorted([".deleting", kept])
    assert list((sandboxes_dir / ".deleting").iterdir()) == []
    assert tree_snapshot(sandboxes_dir / kept) == kept_files


async def test_a_failed_delete_can_be_retried_without_a_restart(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with Root(settings) as services:
        doomed = await _finished_campaign(services)
        with monkeypatch.context() as patch:
            patch.setattr(services.store, "delete", crash_async)
            with pytest.raises(Crash):
                await services.campaigns.delete(doomed)
        await services.campaigns.delete(doomed)
        with pytest.raises(NotFound):
            await services.store.get(doomed)
        assert services.sandboxes.ids() == set() and services.sandboxes.pending_deletions() == []


async def test_startup_removes_sandboxes_without_a_record(settings: Settings) -> None:
    """What the record-first deletion of earlier versions left behind (and any other orphan)."""
    async with Root(settings) as services:
        kept = await _finished_campaign(services)
        running = await services.store.create(new_campaign())  # queued: resumed on entry, sandbox kept
        services.sandboxes.create(running.id).write("plan.md", b"plan")
        plant_hostile_tree(services.sandboxes.create("corphan").root, 50)
        services.sandboxes.create("cempty")
        assert services.sandboxes.ids() == {kept, running.id, "corphan", "cempty"}
    async with Root(settings) as services:
        assert {kept, running.id} <= services.sandboxes.ids()
        assert not services.sandboxes.exists("corphan") and not services.sandboxes.exists("cempty")
