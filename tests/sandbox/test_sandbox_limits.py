"""Sandbox limits checked before anything is created: depth, name and path length, files and folders
together; a refused write leaves the tree exactly as it was; files with two names are never read."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from deepr_mcp.config import Settings
from deepr_mcp.errors import PathRejected, QuotaExceeded
from deepr_mcp.sandbox import SandboxManager, fs
from tests.hostile_trees import tree_snapshot


@pytest.fixture
def manager(tmp_path: Path) -> SandboxManager:
    return SandboxManager(tmp_path / "sandboxes", max_bytes=10_000, max_files=12, max_depth=5)


def test_max_depth_is_a_setting_with_default_32() -> None:
    assert Settings().sandbox.max_depth == 32
    assert SandboxManager.__init__.__kwdefaults__["max_depth"] == 32


def test_depth_limit_counts_levels_after_normalising(manager: SandboxManager) -> None:
    sandbox = manager.create("c1")
    sandbox.write("a/b/c/d/e.txt", b"five levels")  # exactly the limit
    assert sandbox.read("a/b/c/d/e.txt")[0] == b"five levels"
    sandbox.write("x/y/../y/z/w/v.txt", b"")  # five once '..' is resolved
    with pytest.raises(PathRejected) as caught:
        sandbox.write("a/b/c/d/e/f.txt", b"six")
    assert caught.value.rule == "too_deep"
    assert "at most 5" in caught.value.message and "sandbox.max_depth" in caught.value.message
    assert "6 levels" in caught.value.message
    for op in (lambda p: sandbox.read(p), lambda p: sandbox.delete(p), lambda p: sandbox.list(p)):
        with pytest.raises(PathRejected, match="too_deep"):
            op("a/b/c/d/e/f")


@pytest.mark.parametrize(
    ("path", "rule", "says"),
    [
        ("d/" * 2000 + "f", "too_deep", "at most 5"),
        ("n" * 256, "name_too_long", "255 bytes"),
        ("ok/" + "é" * 128 + "/f", "name_too_long", "256 bytes"),  # 128 characters, 256 bytes in UTF-8
        ("a/" * 2100 + "f", "path_too_long", "4096 bytes"),
        ("é" * 2049, "path_too_long", "4,098 bytes"),
    ],
)
def test_limits_are_checked_before_anything_is_created(
    manager: SandboxManager, path: str, rule: str, says: str
) -> None:
    sandbox = manager.create("c1")
    sandbox.write("keep/me.txt", b"kept")
    before = tree_snapshot(sandbox.root)
    for append in (False, True):
        with pytest.raises(PathRejected) as caught:
            sandbox.write(path, b"x", append=append)
        assert caught.value.rule == rule and says in caught.value.message
        assert len(caught.value.message) < 400  # the path is shortened, not echoed whole
    assert tree_snapshot(sandbox.root) == before


def test_folders_count_toward_max_files(manager: SandboxManager) -> None:
    sandbox = manager.create("c1")
    sandbox.write("a/b/c/one.txt", b"1")  # 3 folders + 1 file
    assert sandbox.usage().entries == 4 and sandbox.usage().folders == 3
    for i in range(7):
        sandbox.write(f"f{i}", b"")
    assert sandbox.usage().entries == 11
    with pytest.raises(QuotaExceeded) as caught:
        sandbox.write("new/two.txt", b"2")  # one folder and one file: 13 > 12
    assert "13 files and folders" in caught.value.message and "sandbox.max_files" in caught.value.message
    assert not (sandbox.root / "new").exists()
    sandbox.write("a/b/c/two.txt", b"2")  # no new folder: 12 fits
    sandbox.write("a/b/c/two.txt", b"22")  # replacing adds nothing


def test_many_refused_writes_leave_the_tree_exactly_as_before(manager: SandboxManager) -> None:
    """Quota, count, depth and names, each refused many times over: not one folder is left behind."""
    sandbox = manager.create("c1")
    sandbox.write("notes/a.md", b"a" * 9000)
    sandbox.write("final_report.md", b"# r")
    for i in range(8):
        sandbox.write(f"small{i}.txt", b"")  # 11 of the 12 files and folders allowed
    before = tree_snapshot(sandbox.root)
    refused = 0
    for i in range(120):
        for path, data in [
            (f"q{i}/r/s/big.bin", b"b" * 2000),  # bytes quota, 3 new folders
            (f"c{i}/d/e/f/g.txt", b""),  # file count, 4 new folders
            (f"deep{i}/" * 6 + "f", b""),  # depth
            (f"n{i}/" + "x" * 300, b""),  # name length
            (f"two{i}/more/x", b""),  # file count, 2 new folders
            (f"final_report.md/sub{i}/x", b""),  # a file where a folder must be
        ]:
            with pytest.raises((PathRejected, QuotaExceeded)):
                sandbox.write(path, data)
            refused += 1
    assert refused == 720
    assert tree_snapshot(sandbox.root) == before


def test_folders_made_for_a_write_that_fails_are_removed(
    manager: SandboxManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks passed, the folders were made, then the file write failed (disk full): undo."""
    sandbox = manager.create("c1")
    sandbox.write("a/keep.txt", b"k")
    before = tree_snapshot(sandbox.root)

    def disk_full(dfd: int, name: str, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(fs, "write_atomic", disk_full)
    with pytest.raises(QuotaExceeded, match="disk is full"):
        sandbox.write("a/new1/new2/f.txt", b"x")
    assert tree_snapshot(sandbox.root) == before
    real_mkdir = os.mkdir
    calls = []

    def mkdir_fails_second_time(name: str, mode: int = 0o777, *, dir_fd: int | None = None) -> None:
        calls.append(name)
        if len(calls) == 2:
            raise OSError(errno.EDQUOT, "Disk quota exceeded")
        real_mkdir(name, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "mkdir", mkdir_fails_second_time)
    with pytest.raises(PathRejected, match="os_error"):
        sandbox.write("b/c/f.txt", b"x")
    assert calls == ["b", "c"]
    assert tree_snapshot(sandbox.root) == before


def test_a_hard_link_planted_inside_is_never_read(manager: SandboxManager, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the server's own secret")
    sandbox = manager.create("c1")
    try:
        os.link(secret, sandbox.root / "final_report.md")  # tmp_path and the sandbox share a file system
    except OSError as exc:  # pragma: no cover - only on a machine where tmp spans file systems
        pytest.skip(f"cannot hard-link here: {exc}")
    os.link(secret, sandbox.root / "copy.txt")
    for path in ("copy.txt", "final_report.md"):
        with pytest.raises(PathRejected) as caught:
            sandbox.read(path)
        assert caught.value.rule == "hard_link" and "3 names" in caught.value.message
        with pytest.raises(PathRejected, match="hard_link"):
            sandbox.write(path, b" more", append=True)  # appending reads the old content first
    extracted = manager.extract_results("c1")
    assert extracted.final_report is None
    assert any("final_report.md" in note and "hard links" in note for note in extracted.skipped)
    assert "secret" not in repr(extracted)
    sandbox.write("copy.txt", b"mine now")  # replacing the name is fine: the other name keeps its file
    assert sandbox.read("copy.txt")[0] == b"mine now"
    assert secret.read_text() == "the server's own secret"
