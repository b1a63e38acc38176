"""Listing, extraction and removal of trees no server call could make: 2,000 folders deep, links,
pipes. Nothing recurses per level, nothing follows a link, and the outside is never touched."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from deepr_mcp.errors import Conflict
from deepr_mcp.sandbox import SandboxManager, tree
from tests.hostile_trees import plant_hostile_tree, tree_snapshot


@pytest.fixture
def world(tmp_path: Path) -> dict:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "canary.txt").write_text("do not touch")
    manager = SandboxManager(tmp_path / "sandboxes", max_bytes=100_000, max_files=50, max_depth=8)
    return {"outside": outside, "manager": manager, "tmp": tmp_path}


def test_a_2000_deep_tree_is_listed_extracted_and_deleted(world: dict) -> None:
    manager, outside = world["manager"], world["outside"]
    sandbox = manager.create("c1")
    sandbox.write("final_report.md", b"# Report\n")
    sandbox.write("notes/sq1.md", b"note")
    plant_hostile_tree(sandbox.root, 2000, outside=outside)
    before = tree_snapshot(outside)
    assert sys.getrecursionlimit() < 2000  # so any walk that recursed per level would have failed

    listing = sandbox.listing()
    paths = [e.path for e in listing.entries]
    assert "final_report.md" in paths and "notes/sq1.md" in paths
    assert max(p.count("/") + 1 for p in paths) == 8  # down to the depth limit, no further
    assert any("deeper than 8 levels" in note and "sandbox.max_depth" in note for note in listing.skipped)
    assert any(note.startswith("top-link: a symbolic link") for note in listing.skipped)
    assert any(note.startswith("top-pipe: a named pipe") for note in listing.skipped)

    extracted = manager.extract_results("c1")
    assert extracted.final_report == "# Report\n"
    assert {"final_report.md", "notes/sq1.md"} <= {a.path for a in extracted.artifacts}
    assert extracted.skipped == listing.skipped

    usage = sandbox.usage()
    assert usage.entries > 50  # counted at every depth, so the planted folders fill the quota
    with pytest.raises(Exception, match="already holds more than 50"):
        sandbox.write("more.txt", b"x")

    manager.remove("c1")
    assert not manager.exists("c1")
    assert tree_snapshot(outside) == before
    assert (outside / "canary.txt").read_text() == "do not touch"


def test_listing_stops_at_the_file_count_and_says_so(world: dict) -> None:
    manager = world["manager"]
    sandbox = manager.create("c1")
    for i in range(60):  # planted: the server would have stopped at 50
        (sandbox.root / f"f{i:02}").write_bytes(b"")
    listing = sandbox.listing()
    assert len(listing.entries) == 50
    assert any("stopped after 50 entries" in note for note in listing.skipped)


def test_skipped_notes_are_capped(world: dict) -> None:
    sandbox = world["manager"].create("c1")
    for i in range(40):
        os.mkfifo(sandbox.root / f"pipe{i:02}")
    skipped = sandbox.listing().skipped
    assert len(skipped) == tree.MAX_NOTES + 1 and skipped[-1] == "... and 20 more skipped"


def test_removal_never_follows_links_and_handles_odd_files(world: dict) -> None:
    manager, outside = world["manager"], world["outside"]
    sandbox = manager.create("c1")
    (outside / "sub").mkdir()
    (outside / "sub" / "inner.txt").write_text("inside the outside")
    before = tree_snapshot(outside)
    root = sandbox.root
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "to-dir").symlink_to(outside, target_is_directory=True)
    (root / "a" / "to-sub").symlink_to(outside / "sub")
    (root / "dangling").symlink_to(world["tmp"] / "nothing")
    os.mkfifo(root / "a" / "pipe")
    os.link(outside / "canary.txt", root / "a" / "hard")
    locked = root / "locked"
    locked.mkdir()
    (locked / "x").write_text("x")
    locked.chmod(0)  # for a non-root user, a folder it cannot enter until it makes it searchable again
    manager.remove("c1")
    assert not root.exists()
    assert tree_snapshot(outside) == before
    assert (outside / "canary.txt").read_text() == "do not touch"


def test_a_folder_moved_out_mid_walk_ends_the_walk_instead_of_leading_outside(world: dict) -> None:
    """The walk climbs back through '..' and checks it came back where it was; a folder moved away
    meanwhile (its '..' now outside) is refused, never walked from."""
    manager, outside = world["manager"], world["outside"]
    sandbox = manager.create("c1")
    (sandbox.root / "a" / "b" / "c").mkdir(parents=True)
    (sandbox.root / "a" / "b" / "c" / "f.txt").write_text("f")
    (sandbox.root / "z.txt").write_text("z")
    before = tree_snapshot(outside)
    top = os.open(sandbox.root, tree.DIR_FLAGS)
    try:
        walk = tree.Walk(top, max_depth=10)
        with pytest.raises(Conflict, match="was moved"):
            for found in walk.entries(on_leave=lambda fd, name: None):
                if found.rel == "a/b/c/f.txt":  # the walk stands in a/b/c: move a/b outside
                    os.rename(sandbox.root / "a" / "b", outside / "b")
    finally:
        os.close(top)
    os.rename(outside / "b", sandbox.root / "a" / "b")
    assert tree_snapshot(outside) == before


def test_remove_tree_of_nothing_and_of_a_file(tmp_path: Path) -> None:
    base = os.open(tmp_path, tree.DIR_FLAGS)
    try:
        tree.remove_tree(base, "absent")
        (tmp_path / "file").write_text("x")
        tree.remove_tree(base, "file")
    finally:
        os.close(base)
    assert list(tmp_path.iterdir()) == []


def test_cleanup_removes_orphans_with_links_and_pipes(world: dict) -> None:
    manager = world["manager"]
    plant_hostile_tree(manager.create("orphan").root, 50, outside=world["outside"])
    manager.create("kept")
    assert manager.cleanup({"kept"}) == ["orphan"]
    assert manager.ids() == {"kept"}


def test_a_sandbox_made_at_every_limit_is_listed_extracted_and_removed_whole(tmp_path: Path) -> None:
    """The largest tree the server itself can make: depth at the limit, names and paths at theirs,
    every file and folder the quota allows. Nothing in it is skipped."""
    manager = SandboxManager(tmp_path / "sandboxes", max_bytes=1_000_000, max_files=300, max_depth=32)
    sandbox = manager.create("c1")
    sandbox.write("final_report.md", b"# Report\n")
    long_deep = "/".join(f"{i:02}" + "n" * 124 for i in range(31)) + "/f.txt"  # 32 levels, 3,942 bytes
    sandbox.write(long_deep, b"deep")
    sandbox.write("n" * 255, b"long name")
    for i in range(265):  # 35 made so far: the report, 31 folders, 2 files, and "many"
        sandbox.write(f"many/{i:04}.txt", b"x")
    assert sandbox.usage().entries == 300
    with pytest.raises(Exception, match="allows 300"):
        sandbox.write("one-more.txt", b"")
    listing = sandbox.listing()
    assert listing.skipped == [] and len(listing.entries) == 300
    assert long_deep in {e.path for e in listing.entries}
    extracted = manager.extract_results("c1")
    assert extracted.final_report == "# Report\n" and extracted.skipped == []
    assert sandbox.read(long_deep)[0] == b"deep"
    manager.remove("c1")
    assert manager.ids() == set()


def test_deleting_a_sandbox_replaced_by_a_link_removes_the_link_only(world: dict) -> None:
    manager, outside = world["manager"], world["outside"]
    (manager.base_dir / "c1").symlink_to(outside, target_is_directory=True)
    before = tree_snapshot(outside)
    manager.begin_delete("c1")
    manager.finish_delete("c1")
    assert not os.path.lexists(manager.base_dir / "c1")
    assert tree_snapshot(outside) == before


def test_a_folder_removed_under_the_walk_does_not_break_it(world: dict) -> None:
    """A delete racing a listing: the walk climbs out of the removed folder and finishes."""
    sandbox = world["manager"].create("c1")
    (sandbox.root / "a" / "b").mkdir(parents=True)
    (sandbox.root / "a" / "b" / "f.txt").write_text("f")
    (sandbox.root / "z.txt").write_text("z")
    seen = []
    top = os.open(sandbox.root, tree.DIR_FLAGS)
    try:
        for found in tree.Walk(top, max_depth=10).entries():
            seen.append(found.rel)
            if found.rel == "a/b/f.txt":  # the walk stands in a/b: remove it under its feet
                os.unlink(sandbox.root / "a" / "b" / "f.txt")
                os.rmdir(sandbox.root / "a" / "b")
    finally:
        os.close(top)
    assert seen == ["a", "a/b", "a/b/f.txt", "z.txt"]
    assert [e.path for e in sandbox.listing().entries] == ["a", "z.txt"]
