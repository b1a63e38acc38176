"""The sandbox's hostile inputs as a client sends them, through MCP: each gets an ``isError`` result
that says what was wrong and what is allowed, nothing is left behind, and the connection keeps
answering. Trees no tool could make (2,000 folders deep, links, pipes, a hard link to a file
outside) are planted on disk by the test, then listed, extracted, read and deleted through tools."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.campaigns import QUESTION, follow
from tests.clients import call, connect, text_of
from tests.hostile_trees import plant_hostile_tree, tree_snapshot

LIMITS = {"sandbox": {"max_files": 42, "max_depth": 32}}
"""A finished campaign holds 5 to 9 files and folders; 42 leaves room for one 21-deep write, not two."""


async def refused(client: Client, name: str, arguments: dict[str, Any], *says: str) -> str:
    result = await client.call_tool("tool_call", {"name": name, "arguments": arguments})
    message = text_of(result)
    assert result.is_error, (name, message)
    for words in says:
        assert words in message, (words, message)
    assert "Traceback" not in message and len(message) < 1000
    return message


async def finished_campaign(client: Client) -> str:
    cid = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
    answers = await follow(client, cid)
    assert answers[-1]["phase"] == "complete", answers[-1]
    return cid


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_refused_writes_say_the_limit_and_leave_nothing(era: str, data_dir: Path) -> None:
    async with connect("inproc", era, data_dir, config=LIMITS) as client:
        cid = await finished_campaign(client)
        root = data_dir / "sandboxes" / cid
        write = {"campaign_id": cid, "content": "x"}
        await call(client, "sandbox_write", {**write, "path": "g/" * 20 + "x"})  # 21 files and folders
        before = tree_snapshot(root)
        for _ in range(3):  # refused again and again: still nothing left behind
            await refused(
                client,
                "sandbox_write",
                {**write, "path": "d/" * 2000 + "f"},
                "(too_deep)",
                "2001 levels",
                "at most 32",
                "sandbox.max_depth",
            )
            await refused(client, "sandbox_write", {**write, "path": "a/" * 33 + "f"}, "(too_deep)", "at most 32")
            await refused(client, "sandbox_write", {**write, "path": "n/" + "x" * 256}, "(name_too_long)", "255 bytes")
            await refused(client, "sandbox_write", {**write, "path": "é" * 2100}, "(path_too_long)", "4096 bytes")
            await refused(client, "sandbox_write", {**write, "path": "a" * 5000}, "at most 4096 characters")
            await refused(
                client, "sandbox_write", {**write, "path": "final_report.md/x"}, "(not_a_directory)", "final_report.md"
            )
            await refused(
                client,
                "sandbox_write",
                {**write, "path": "h/" * 20 + "y"},  # 21 more: over 42 with what is there
                "files and folders",
                "allows 42",
                "sandbox.max_files",
            )
            await refused(client, "sandbox_read", {"campaign_id": cid, "path": "a/" * 40 + "f"}, "(too_deep)")
        assert tree_snapshot(root) == before
        listed = await call(client, "sandbox_list", {"campaign_id": cid})
        assert listed["skipped"] == [] and "final_report.md" in {e["path"] for e in listed["entries"]}
        await call(client, "sandbox_write", {**write, "path": "g/" * 31 + "f"})  # 32 levels, 12 new: fits
        assert (await call(client, "campaign_status", {"campaign_id": cid}))["phase"] == "complete"


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_planted_trees_are_listed_extracted_and_deleted_through_tools(
    era: str, data_dir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("the server user's secret")
    async with connect("inproc", era, data_dir, config=LIMITS) as client:
        cid = await finished_campaign(client)
        root = data_dir / "sandboxes" / cid
        plant_hostile_tree(root, 2000, outside=outside)
        (root / "final_report.md").unlink()
        os.link(secret, root / "final_report.md")
        os.link(secret, root / "notes" / "copy.md")

        listed = await call(client, "sandbox_list", {"campaign_id": cid})
        paths = {e["path"] for e in listed["entries"]}
        assert "notes/sq1.md" in paths and max(p.count("/") + 1 for p in paths) == 32
        skipped = " | ".join(listed["skipped"])
        assert "deeper than 32 levels (setting sandbox.max_depth)" in skipped
        assert "top-link: a symbolic link" in skipped and "top-pipe: a named pipe" in skipped

        extracted = await call(client, "sandbox_extract", {"campaign_id": cid})
        assert extracted["final_report"] is None
        assert any("final_report.md" in n and "hard links" in n for n in extracted["skipped"])
        assert "secret" not in str(extracted)

        read = {"campaign_id": cid}
        await refused(client, "sandbox_read", {**read, "path": "notes/copy.md"}, "(hard_link)", "single name")
        await refused(client, "sandbox_read", {**read, "path": "final_report.md"}, "(hard_link)")
        await refused(client, "sandbox_read", {**read, "path": "top-pipe"}, "(not_regular_file)", "regular files")
        await refused(client, "sandbox_read", {**read, "path": "top-link/secret.txt"}, "(symlink)", "never followed")
        await refused(
            client, "sandbox_write", {**read, "path": "more.md", "content": "x"}, "more than 42", "sandbox.max_files"
        )

        deleted = await call(client, "campaign_delete", {"campaign_id": cid})
        assert deleted["deleted"] is True
        assert not root.exists() and list((data_dir / "sandboxes" / ".deleting").iterdir()) == []
        assert secret.read_text() == "the server user's secret" and sorted(os.listdir(outside)) == ["secret.txt"]
        await refused(client, "sandbox_list", {"campaign_id": cid}, "no sandbox")
        await refused(client, "campaign_status", {"campaign_id": cid}, "no campaign")
        listed = await call(client, "campaign_list", {})  # still answering, without the deleted campaign
        assert cid not in {c["campaign_id"] for c in listed["campaigns"]}
