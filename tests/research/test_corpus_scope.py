"""AddScope: confinement to roots judged by where paths lead, links out picked out, per-call caps."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest import ESCAPED, AddScope, files_under, plan_add
from deepr_mcp.research.corpus.storage import Corpus


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "real-root", tmp_path / "outside"
    (root / "docs" / "inner").mkdir(parents=True)
    outside.mkdir()
    (root / "docs" / "a.md").write_text("# A\n\nalpha text here.\n")
    (root / "docs" / "inner" / "b.md").write_text("# B\n\nbeta text here.\n")
    (outside / "secret.md").write_text("# S\n\nsecret text here.\n")
    (root / "docs" / "out.md").symlink_to(outside / "secret.md")
    (root / "docs" / "in.md").symlink_to(root / "docs" / "a.md")  # a link that stays inside
    (root / "docs" / "out-folder").symlink_to(outside, target_is_directory=True)
    return root, outside


def test_roots_are_judged_by_where_paths_really_lead(tmp_path: Path) -> None:
    root, outside = _tree(tmp_path)
    (tmp_path / "root-link").symlink_to(root, target_is_directory=True)
    scope = AddScope.under([tmp_path / "root-link"], max_files=10, max_bytes=10_000)  # a root given via a link
    assert scope.confine(root / "docs") == root / "docs"
    assert scope.confine(tmp_path / "root-link" / "docs" / "a.md") == root / "docs" / "a.md"
    assert scope.confine(root / "docs" / "in.md") == root / "docs" / "a.md"
    for path in (
        outside,
        root / "docs" / "out.md",
        root / "docs" / ".." / ".." / "outside",
        root / "docs" / "out-folder",
    ):
        with pytest.raises(InvalidInput, match="outside the corpus roots"):
            scope.confine(path)
    with pytest.raises(InvalidInput, match="absolute path"):
        scope.confine(Path("docs"))
    assert AddScope().confine(Path("relative/ok")) == Path("relative/ok")  # no roots: anywhere (stdio, CLI)
    for hostile in (f"{root}/a\x00b", f"{root}/{'x' * 300}"):
        for any_scope in (scope, None):
            with pytest.raises(InvalidInput, match="not a usable path"):
                plan_add(hostile, (), any_scope)


def test_a_walk_lists_links_out_of_the_roots_and_never_follows_them(tmp_path: Path) -> None:
    root, _ = _tree(tmp_path)
    scope = AddScope.under([root], max_files=10, max_bytes=10_000)
    found = files_under(root / "docs", escapes=scope.escapes)
    assert [name for _, name in found.files] == ["a.md", "in.md", "inner/b.md"]
    assert sorted(name for _, name in found.escaped) == ["out-folder", "out.md"]
    without = files_under(root / "docs")  # the CLI: no roots, nothing picked out (folders still not walked into)
    assert "out.md" in [name for _, name in without.files] and not without.escaped


def test_caps_keep_files_in_order_and_name_the_setting(tmp_path: Path) -> None:
    items = []
    for i in range(4):
        (tmp_path / f"f{i}.md").write_text("x" * 100)
        items.append((tmp_path / f"f{i}.md", f"f{i}.md"))
    kept, left, why = AddScope(None, 2, None).cap(items)
    assert [n for _, n in kept] == ["f0.md", "f1.md"] and left == ["f2.md", "f3.md"] and "max_files_per_call" in why
    kept, left, why = AddScope(None, None, 250).cap(items)
    assert len(kept) == 2 and left == ["f2.md", "f3.md"] and "max_bytes_per_call" in why and "f2.md" in why
    assert AddScope(None, 4, 400).cap(items) == (items, [], None)
    with pytest.raises(InvalidInput, match=r"nothing was added.*max_bytes_per_call"):
        plan_add(tmp_path / "f0.md", (), AddScope(None, None, 50))


def test_a_scoped_add_reports_links_out_as_skipped_and_reads_nothing_through_them(tmp_path: Path) -> None:
    root, _ = _tree(tmp_path)
    corpus = Corpus(tmp_path / "corpus.db")
    try:
        report = corpus.add_path(root / "docs", scope=AddScope.under([root], max_files=10, max_bytes=10_000))
        skipped = {f.name: f.reason for f in report.files if f.status == "skipped"}
        assert skipped == {"out.md": ESCAPED, "out-folder": ESCAPED}
        assert not corpus.search("secret", 5)
    finally:
        corpus.close()
