"""Sandbox path rules, quotas, extraction, and a race against symlink swaps; a canary outside
the sandbox must never be read, written or deleted."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from deepr_mcp.errors import Conflict, NotFound, PathRejected, QuotaExceeded
from deepr_mcp.sandbox import SandboxManager, split_path


@pytest.fixture
def world(tmp_path: Path) -> dict:
    outside = tmp_path / "outside"
    outside.mkdir()
    canary = outside / "canary.txt"
    canary.write_text("do not touch")
    manager = SandboxManager(tmp_path / "sandboxes", max_bytes=10_000, max_files=20)
    sandbox = manager.create("c1")
    return {"outside": outside, "canary": canary, "manager": manager, "sandbox": sandbox, "tmp": tmp_path}


def snapshot(outside: Path) -> dict:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in outside.iterdir()}


RULES = [
    ("/etc/passwd", "absolute"),
    ("\\windows\\system32", "absolute"),
    ("C:\\Windows\\win.ini", "drive"),
    ("C:win.ini", "drive"),
    ("c:/x", "drive"),
    ("\\\\server\\share\\f", "unc"),
    ("//host/share", "unc"),
    ("\\\\?\\C:\\x", "unc"),
    ("../escape.txt", "parent_escape"),
    ("a/../../escape.txt", "parent_escape"),
    ("a\\..\\..\\escape.txt", "parent_escape"),
    ("bad\x00name", "nul_byte"),
    ("", "empty"),
    (".", "empty"),
    ("a/..", "empty"),
    ("x" * 256, "name_too_long"),
    ("a/" * 2100 + "f", "path_too_long"),
]


@pytest.mark.parametrize(("path", "rule"), RULES)
def test_every_rejection_rule_names_itself(path: str, rule: str, world: dict) -> None:
    before = snapshot(world["outside"])
    for op in (lambda: world["sandbox"].write(path, b"x"), lambda: world["sandbox"].read(path)):
        with pytest.raises(PathRejected) as caught:
            op()
        assert caught.value.rule == rule
        assert f"({rule})" in caught.value.message
    assert snapshot(world["outside"]) == before


def test_components_not_string_prefixes(tmp_path: Path) -> None:
    manager = SandboxManager(tmp_path / "s")
    a, ab = manager.create("a"), manager.create("ab")
    ab.write("secret.txt", b"ab's")
    with pytest.raises(PathRejected):
        a.read("../ab/secret.txt")
    assert split_path("x/./y//z") == ["x", "y", "z"]
    assert split_path("x/../y") == ["y"]


def test_symlinks_at_any_level_are_refused(world: dict) -> None:
    root, outside = world["sandbox"].root, world["outside"]
    (root / "dirlink").symlink_to(outside, target_is_directory=True)
    (root / "real" / "deeper").mkdir(parents=True)
    (root / "real" / "deeper" / "link").symlink_to(outside)
    (root / "filelink").symlink_to(world["canary"])
    before = snapshot(outside)
    for path in ["dirlink/canary.txt", "dirlink/new.txt", "real/deeper/link/canary.txt", "filelink"]:
        with pytest.raises(PathRejected) as caught:
            world["sandbox"].write(path, b"pwned")
        assert caught.value.rule == "symlink"
        with pytest.raises(PathRejected):
            world["sandbox"].read(path)
    world["sandbox"].delete("filelink")  # removes the link itself, never its target
    assert world["canary"].read_text() == "do not touch"
    assert snapshot(outside) == before
    names = {e.path for e in world["sandbox"].list()}
    assert "canary.txt" not in {Path(n).name for n in names}


def test_devices_and_fifos_are_refused(world: dict) -> None:
    root = world["sandbox"].root
    os.mkfifo(root / "pipe")
    with pytest.raises(PathRejected) as caught:
        world["sandbox"].read("pipe")  # opened non-blocking: no hang
    assert caught.value.rule == "not_regular_file"
    with pytest.raises(PathRejected):
        world["sandbox"].write("pipe", b"x")


def test_read_ranges_write_append_delete_list(world: dict) -> None:
    sandbox = world["sandbox"]
    sandbox.write("notes/a.txt", b"0123456789")
    assert sandbox.read("notes/a.txt", offset=3, length=4) == (b"3456", 10)
    assert sandbox.read("notes/a.txt", offset=20) == (b"", 10)
    sandbox.write("notes/a.txt", b"AB", append=True)
    assert sandbox.read("notes/a.txt")[0] == b"0123456789AB"
    assert [e.path for e in sandbox.list()] == ["notes", "notes/a.txt"]
    assert [e.path for e in sandbox.list("notes")] == ["notes/a.txt"]
    with pytest.raises(Conflict, match="not empty"):
        sandbox.delete("notes")
    sandbox.delete("notes/a.txt")
    sandbox.delete("notes")
    with pytest.raises(NotFound):
        sandbox.read("notes/a.txt")
    with pytest.raises(NotFound):
        sandbox.delete("nothing.txt")


def test_quota_failures_leave_nothing_behind(world: dict) -> None:
    sandbox = world["sandbox"]
    sandbox.write("keep.bin", b"k" * 6000)
    with pytest.raises(QuotaExceeded, match="10,000"):
        sandbox.write("big.bin", b"b" * 5000)
    with pytest.raises(QuotaExceeded):
        sandbox.write("keep.bin", b"k" * 4001, append=True)
    assert sandbox.read("keep.bin")[0] == b"k" * 6000
    assert sorted(os.listdir(sandbox.root)) == ["keep.bin"]  # no partial file, no temp file
    sandbox.write("keep.bin", b"small")  # replacing frees the old bytes
    for i in range(19):
        sandbox.write(f"f{i}", b"")
    with pytest.raises(QuotaExceeded, match="20"):
        sandbox.write("one-too-many", b"")
    assert not (sandbox.root / "one-too-many").exists()


def test_extract_results_and_cleanup(world: dict) -> None:
    manager, sandbox = world["manager"], world["sandbox"]
    sandbox.write("notes/sq1.md", b"intermediate")
    assert manager.extract_results("c1").final_report is None
    sandbox.write_text("final_report.md", "# Report\n")
    extracted = manager.extract_results("c1")
    assert extracted.final_report == "# Report\n"
    assert [a.path for a in extracted.artifacts] == ["final_report.md", "notes/sq1.md"]
    manager.create("c2")
    assert manager.cleanup({"c2"}) == ["c1"]
    assert not manager.exists("c1") and manager.exists("c2")
    for bad in ["../x", "a/b", "", "x" * 65]:
        with pytest.raises(PathRejected, match="bad_id"):
            manager.create(bad)


def test_race_swapping_a_directory_for_a_symlink(world: dict) -> None:
    """One thread keeps swapping sub/ for a link to outside/; writes through sub/ never land outside."""
    sandbox, outside, root = world["sandbox"], world["outside"], world["sandbox"].root
    before = snapshot(outside)
    (root / "sub").mkdir()
    stop = threading.Event()

    def swapper() -> None:
        # The writer may recreate sub/ in the gap between the moves; each move tolerates that.
        while not stop.is_set():
            for step in (
                lambda: os.rename(root / "sub", root / "sub.real"),
                lambda: os.symlink(outside, root / "sub"),
                lambda: os.unlink(root / "sub") if (root / "sub").is_symlink() else None,
                lambda: os.rename(root / "sub.real", root / "sub"),
            ):
                try:
                    step()
                except OSError:
                    pass

    thread = threading.Thread(target=swapper)
    thread.start()
    landed = refused = 0
    deadline = time.monotonic() + 5
    try:
        for i in range(3000):
            if time.monotonic() > deadline:
                break
            try:
                sandbox.write(f"sub/f{i % 5}.txt", b"payload")
                landed += 1
            except (PathRejected, NotFound, QuotaExceeded):
                refused += 1
    finally:
        stop.set()
        thread.join()
    assert snapshot(outside) == before
    assert landed > 0 and refused > 0, (landed, refused)  # both sides of the race happened
