"""Sandbox path rules, quotas, extraction, and a race against symlink swaps; a canary outside
the sandbox must never be read, written or deleted."""

from __future__ import annotations

import contextlib
import os
import shutil
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
    """One thread keeps swapping sub/ for a link to outside/; writes through sub/ never land outside.

    What must hold is only that the outside is untouched. The loop runs until both outcomes of the
    race have been seen (a write landed in the real sub/, a write was refused at the link), with a
    generous cap, so a loaded machine makes the test slower, never red. The swapper heals the one
    state that used to stall it: the writer recreating sub/ while the real one is parked aside.
    """
    sandbox, outside, root = world["sandbox"], world["outside"], world["sandbox"].root
    before = snapshot(outside)
    (root / "sub").mkdir()
    stop = threading.Event()
    sub, parked = root / "sub", root / "sub.real"

    def to_link() -> None:
        with contextlib.suppress(OSError):
            os.rename(sub, parked)
        if sub.is_dir() and not sub.is_symlink() and parked.exists():
            shutil.rmtree(sub, ignore_errors=True)  # the writer recreated sub/ in the gap
        with contextlib.suppress(OSError):
            os.symlink(outside, sub)

    def to_dir() -> None:
        if sub.is_symlink():
            with contextlib.suppress(OSError):
                os.unlink(sub)
        with contextlib.suppress(OSError):
            os.rename(parked, sub)

    def swapper() -> None:
        while not stop.is_set():
            to_link()
            time.sleep(0)
            to_dir()
            time.sleep(0)

    thread = threading.Thread(target=swapper)
    thread.start()
    landed = refused = attempts = 0
    deadline = time.monotonic() + 120  # a cap for a stuck machine, not a speed requirement
    try:
        while not (landed and refused) and time.monotonic() < deadline:
            try:
                sandbox.write(f"sub/f{attempts % 5}.txt", b"payload")
                landed += 1
            except (PathRejected, NotFound, QuotaExceeded):
                refused += 1
            attempts += 1
            assert snapshot(outside) == before, f"a write escaped after {attempts} attempts"
    finally:
        stop.set()
        thread.join()
    assert snapshot(outside) == before
    assert landed > 0 and refused > 0, (landed, refused)  # both sides of the race happened
