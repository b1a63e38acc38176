"""Hypothesis: hostile paths never touch anything outside the sandbox."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deepr_mcp.errors import DeeprError
from deepr_mcp.sandbox import SandboxManager

PIECES = st.sampled_from(["..", ".", "", "a", "b", "link", "deep", "canary.txt", "ü", "名", "\u202e", "x" * 300, "C:"])
SEPARATORS = st.sampled_from(["/", "\\", "//"])


@st.composite
def hostile_paths(draw: st.DrawFn) -> str:
    parts = draw(st.lists(PIECES, min_size=1, max_size=8))
    seps = draw(st.lists(SEPARATORS, min_size=len(parts), max_size=len(parts)))
    lead = draw(st.sampled_from(["", "/", "\\", "../", "a/../"]))
    return lead + "".join(p + s for p, s in zip(parts, seps, strict=True)).rstrip("/\\")


def build(tmp: Path) -> tuple[SandboxManager, Path, Path]:
    outside = tmp / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "canary.txt").write_text("canary")
    manager = SandboxManager(tmp / "sandboxes", max_bytes=1_000_000, max_files=500)
    root = manager.create("c1").root
    (root / "deep" / "er").mkdir(parents=True, exist_ok=True)
    for link, target in [(root / "link", outside), (root / "deep" / "link", outside), (root / "a", outside)]:
        if not link.is_symlink():
            link.symlink_to(target, target_is_directory=True)
    if not (root / "deep" / "canary.txt").is_symlink():
        (root / "deep" / "canary.txt").symlink_to(outside / "canary.txt")
    return manager, root, outside


def outside_state(outside: Path) -> dict:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(outside.iterdir())}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=hostile_paths(), op=st.sampled_from(["read", "write", "append", "delete", "list"]))
def test_hostile_paths_never_escape(tmp_path: Path, path: str, op: str) -> None:
    manager, root, outside = build(tmp_path)
    before = outside_state(outside)
    sandbox = manager.get("c1")
    try:
        if op == "read":
            data, _ = sandbox.read(path)
            assert data != b"canary"
        elif op == "write":
            sandbox.write(path, b"hostile")
        elif op == "append":
            sandbox.write(path, b"hostile", append=True)
        elif op == "delete":
            sandbox.delete(path)
        else:
            listed = sandbox.list(path)
            assert all(not e.path.startswith("..") for e in listed)
    except DeeprError:
        pass
    assert outside_state(outside) == before
    for dirpath, _, files in os.walk(root):
        for name in files:
            assert (
                not Path(dirpath, name).resolve().is_relative_to(outside.resolve()) or Path(dirpath, name).is_symlink()
            )
