"""Sandboxes kept in step between replicas: what is recorded, what is applied, what is refused."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from deepr_mcp.errors import NotFound
from deepr_mcp.replication.journal import Journal
from deepr_mcp.sandbox import SandboxManager
from deepr_mcp.sandbox.shared import SandboxChange

CID = "c0ffee00c0ffee00"


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[SandboxManager, SandboxManager]]:
    made = []
    for name in ("one", "two"):
        manager = SandboxManager(tmp_path / name / "sandboxes", max_bytes=10_000, max_files=20)
        journal = Journal(tmp_path / name / "journal.db")
        manager.share(journal)
        made.append((manager, journal))
    yield made[0][0], made[1][0]
    for _, journal in made:
        journal.close()


def ship(source: SandboxManager, target: SandboxManager) -> int:
    """Move ``source``'s outbox into ``target`` as the shared log would."""
    applied = 0
    for seq, text in source.outbox():
        applied += target.apply_entry(f"{seq}-0", text)
        source.mark_published(seq)
    return applied


def test_an_unshared_manager_records_nothing(tmp_path: Path) -> None:
    manager = SandboxManager(tmp_path / "s")
    manager.create(CID).write("notes.md", b"hello")
    assert manager.outbox() == []


def test_creates_writes_appends_and_deletes_reach_the_other_replica(pair) -> None:
    one, two = pair
    box = one.create(CID)
    box.write("notes/a.md", b"first")
    box.write("notes/a.md", b" and more", append=True)
    box.write("final_report.md", b"# Report")
    assert ship(one, two) == 4
    assert two.get(CID).read("notes/a.md")[0] == b"first and more"  # the whole content travels
    assert two.extract_results(CID).final_report == "# Report"
    box.delete("notes/a.md")
    ship(one, two)
    with pytest.raises(NotFound):
        two.get(CID).read("notes/a.md")


def test_a_write_on_the_other_replica_comes_back(pair) -> None:
    one, two = pair
    one.create(CID)
    ship(one, two)
    two.get(CID).write("from-two.txt", b"written on two")
    assert ship(two, one) == 1 and one.get(CID).read("from-two.txt")[0] == b"written on two"
    assert ship(one, two) == 0  # applying does not record again: nothing echoes


def test_a_deleted_campaign_leaves_every_replica(pair) -> None:
    one, two = pair
    one.create(CID).write("x.txt", b"x")
    ship(one, two)
    one.begin_delete(CID)
    one.finish_delete(CID)
    ship(one, two)
    assert not two.exists(CID)


def test_own_entries_and_replays_are_harmless(pair) -> None:
    one, two = pair
    one.create(CID).write("a.txt", b"a")
    entries = one.outbox()
    for seq, text in entries:
        assert one.apply_entry(f"{seq}-0", text) is False  # its own
    for seq, text in entries * 2:
        two.apply_entry(f"{seq}-0", text)  # twice: same end state
    assert two.get(CID).read("a.txt")[0] == b"a"


def entry(**fields: object) -> str:
    body = {"op": "write", "campaign": CID, "origin": "elsewhere", "path": "a.txt", "data": ""} | fields
    return json.dumps(body)


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        entry(op="chmod"),
        entry(data="***not base64***"),
        entry(path="../../escape.txt", data=base64.b64encode(b"x").decode()),
        entry(path="/etc/passwd", data=base64.b64encode(b"x").decode()),
        entry(campaign="../other"),
        entry(data=base64.b64encode(b"x" * 20_000).decode()),  # over the sandbox quota
    ],
)
def test_a_hostile_entry_is_refused_like_a_hostile_call(pair, tmp_path: Path, text: str) -> None:
    _, two = pair
    assert two.apply_entry("9-0", text) is False
    assert two.sync_cursor() == "9-0"  # skipped for good, never retried
    assert not (tmp_path / "escape.txt").exists() and not (tmp_path / "two" / "escape.txt").exists()
    assert not two.exists(CID) or two.get(CID).list() == []


def test_a_change_survives_its_wire_form_bytes_and_all() -> None:
    change = SandboxChange("write", CID, "origin", "bin/data.bin", bytes(range(256)))
    assert SandboxChange.from_json(change.to_json()) == change
