"""What corpus_add may read over MCP: only under corpus.roots, no symlink out, bounded per call.

Over HTTP with no roots it is refused with what to configure; over stdio (the user who launched
the server) any path works unless roots are set; the CLI reads any path the user names.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.clients import call, connect, text_of
from tests.servers import server_env

DOC = "# Harbour notes\n\nThe {word} tide table is checked before every crossing.\n"


def _doc(path: Path, word: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(DOC.format(word=word))
    return path


async def _refusal(client: Client, arguments: dict[str, Any]) -> str:
    result = await client.call_tool("tool_call", {"name": "corpus_add", "arguments": arguments})
    assert result.is_error, text_of(result)
    assert "Traceback" not in text_of(result)
    return text_of(result)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_over_http_without_roots_corpus_add_is_refused_with_what_to_configure(
    era: str, data_dir: Path, tmp_path: Path
) -> None:
    doc = _doc(tmp_path / "docs" / "a.md", "spring")
    async with connect("http", era, data_dir) as client:
        refusal = await _refusal(client, {"path": str(doc)})
        assert "none are set" in refusal and "DEEPR_CORPUS_ROOTS" in refusal and "[corpus] roots" in refusal
        assert "deepr-mcp corpus add" in refusal


async def test_over_http_with_roots_nothing_outside_them_is_read(empty_data_dir: Path, tmp_path: Path) -> None:
    data_dir = empty_data_dir  # the listing below shows only what this test added
    root, outside = tmp_path / "root", tmp_path / "outside"
    secret = _doc(outside / "secret.md", "forbidden")
    _doc(outside / "more" / "b.md", "forbidden")
    docs = root / "docs"
    _doc(docs / "a.md", "spring")
    (docs / "link.md").symlink_to(secret)  # a file link out of the root
    (docs / "linked-folder").symlink_to(outside / "more", target_is_directory=True)
    (root / "escape").symlink_to(outside, target_is_directory=True)
    config = {"corpus": {"roots": json.dumps([str(root)])}}
    async with connect("http", "legacy", data_dir, config=config) as client:
        for path, expected in [
            (secret, "outside the corpus roots"),
            (root / ".." / "outside" / "secret.md", "outside the corpus roots"),  # '..' judged where it leads
            (root / "escape" / "secret.md", "outside the corpus roots"),  # a linked folder out of the root
            (docs / "link.md", "outside the corpus roots"),  # the link itself, named directly
            (Path("docs/a.md"), "absolute path"),
            (f"{docs}/a\x00.md", "may not contain a NUL character"),
            (f"{docs}/{'x' * 300}.md", "not a usable path"),
        ]:
            assert expected in await _refusal(client, {"path": str(path)}), path
        added = await call(client, "corpus_add", {"path": str(docs)})
        assert added["added"] == 1
        skipped = {s["path"]: s["reason"] for s in added["skipped"]}
        assert set(skipped) == {"link.md", "linked-folder"}
        assert all("not followed" in reason for reason in skipped.values())
        listing = await call(client, "corpus_list", {})
        assert [item["name"] for item in listing["items"]] == ["a.md"]
        assert (await call(client, "corpus_search", {"query": "spring"}))["hits"]
        # by words nothing outside was indexed; by meaning a nearest passage always exists, and it is a.md's
        assert not (await call(client, "corpus_search", {"query": "forbidden", "mode": "lexical"}))["hits"]
        nearest = (await call(client, "corpus_search", {"query": "forbidden"}))["hits"]
        assert {hit["source"] for hit in nearest} <= {"a.md"}, nearest


async def test_over_http_a_named_pipe_under_a_root_is_refused_and_the_server_serves(
    data_dir: Path, tmp_path: Path
) -> None:
    """A FIFO called ``notes.md`` under a corpus root used to hold the call (and a worker thread) forever;
    now the folder's add names it failed, the pipe named alone is refused, and the server answers on."""
    docs = tmp_path / "root" / "docs"
    _doc(docs / "a.md", "spring")
    os.mkfifo(docs / "notes.md")
    config = {"corpus": {"roots": json.dumps([str(tmp_path / "root")])}}
    async with connect("http", "legacy", data_dir, config=config) as client:
        with anyio.fail_after(120):  # a hang guard only
            added = await call(client, "corpus_add", {"path": str(docs)})
            alone = await _refusal(client, {"path": str(docs / "notes.md")})
        assert added["added"] == 1
        failed = {f["path"]: f["reason"] for f in added["failed"]}
        assert any("notes.md" in path and "not a regular file" in why for path, why in failed.items()), failed
        assert "not a regular file (a pipe, socket or device)" in alone
        assert (await call(client, "corpus_search", {"query": "spring"}))["hits"]  # still serving


async def test_per_call_limits_say_what_was_indexed_and_what_was_left(data_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    many = [_doc(root / "many" / f"n{i}.md", f"word{i}") for i in range(5)]
    for i in range(3):
        (root / "big" / f"b{i}.md").parent.mkdir(parents=True, exist_ok=True)
        (root / "big" / f"b{i}.md").write_text("# Big\n\n" + f"tide{i} " * 400)  # about 2.8 kB each
    config = {"corpus": {"roots": json.dumps([str(root)]), "max_files_per_call": 3, "max_bytes_per_call": 6000}}
    async with connect("http", "legacy", data_dir, config=config) as client:
        by_count = await call(client, "corpus_add", {"path": str(root / "many")})
        assert by_count["added"] == 3
        assert by_count["left"]["count"] == 2 and by_count["left"]["first"] == ["n3.md", "n4.md"]
        assert "corpus.max_files_per_call" in by_count["left"]["why"]
        assert "deepr-mcp corpus add" in by_count["left"]["to_add_them"]
        by_bytes = await call(client, "corpus_add", {"path": str(root / "big")})
        assert by_bytes["added"] == 2 and by_bytes["left"]["first"] == ["b2.md"]
        assert "corpus.max_bytes_per_call" in by_bytes["left"]["why"]
        one_file = await call(client, "corpus_add", {"path": str(many[4])})  # a left file, added on its own
        assert one_file["added"] == 1 and "left" not in one_file


async def test_over_stdio_without_roots_any_path_is_allowed(data_dir: Path, tmp_path: Path) -> None:
    doc = _doc(tmp_path / "anywhere" / "a.md", "spring")
    async with connect("stdio", "legacy", data_dir) as client:
        assert (await call(client, "corpus_add", {"path": str(doc)}))["added"] == 1


async def test_over_stdio_configured_roots_apply_too(data_dir: Path, tmp_path: Path) -> None:
    doc = _doc(tmp_path / "anywhere" / "a.md", "spring")
    config = {"corpus": {"roots": json.dumps([str(tmp_path / "root")])}}
    async with connect("stdio", "legacy", data_dir, config=config) as client:
        assert "outside the corpus roots" in await _refusal(client, {"path": str(doc)})


def test_the_cli_adds_any_path_the_user_names_whatever_the_roots(data_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "anywhere"
    for i in range(3):
        _doc(folder / f"a{i}.md", f"word{i}")
    env = server_env(
        data_dir, DEEPR_CORPUS_ROOTS=json.dumps([str(tmp_path / "root")]), DEEPR_CORPUS_MAX_FILES_PER_CALL="1"
    )
    done = subprocess.run(
        [sys.executable, "-m", "deepr_mcp", "corpus", "add", str(folder)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    listing = subprocess.run(
        [sys.executable, "-m", "deepr_mcp", "corpus", "list"], env=env, capture_output=True, text=True, timeout=120
    )
    assert all(f"a{i}.md" in listing.stdout for i in range(3)), listing.stdout
