"""Sandbox and corpus tools through the gateway, including the paths and files they must refuse."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.campaigns import QUESTION, follow
from tests.clients import call, connect, embedded, structured, text_of


async def error_of(client: Client, name: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool("tool_call", {"name": name, "arguments": arguments})
    assert result.is_error, (name, text_of(result))
    return text_of(result)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_sandbox_tools_over_a_finished_campaign(era: str, data_dir: Path, tmp_path: Path) -> None:
    canary = tmp_path / "canary.txt"
    canary.write_text("outside")
    async with connect("inproc", era, data_dir) as client:
        cid = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
        await follow(client, cid)
        listed = {e["path"] for e in (await call(client, "sandbox_list", {"campaign_id": cid}))["entries"]}
        assert {"plan.md", "final_report.md", "notes", "notes/sq1.md"} <= listed
        extracted = await call(client, "sandbox_extract", {"campaign_id": cid})
        report = text_of(await client.call_tool("campaign_report", {"campaign_id": cid}))
        assert extracted["final_report"] == report
        assert "notes/sq1.md" in {a["path"] for a in extracted["artifacts"]}
        assert "content" not in str(extracted["artifacts"])  # only the list, never intermediate content

        first = await call(client, "sandbox_read", {"campaign_id": cid, "path": "plan.md", "length": 10})
        assert first["bytes"] == 10 and first["next_offset"] == 10
        rest = await call(client, "sandbox_read", {"campaign_id": cid, "path": "plan.md", "offset": 10})
        assert (first["content"] + rest["content"]).startswith("# Plan") and rest["next_offset"] is None

        await call(client, "sandbox_write", {"campaign_id": cid, "path": "mine/notes.md", "content": "hello"})
        await call(
            client, "sandbox_write", {"campaign_id": cid, "path": "mine/notes.md", "content": "!", "append": True}
        )
        raw = await call(client, "sandbox_read", {"campaign_id": cid, "path": "mine/notes.md", "encoding": "base64"})
        assert base64.b64decode(raw["content"]) == b"hello!"
        await call(client, "sandbox_delete", {"campaign_id": cid, "path": "mine/notes.md"})

        for path, rule in [
            ("../../canary.txt", "parent_escape"),
            (str(canary), "absolute"),
            ("C:\\canary.txt", "drive"),
            ("\\\\host\\share", "unc"),
        ]:
            for name in ("sandbox_read", "sandbox_write", "sandbox_delete"):
                args = {"campaign_id": cid, "path": path}
                if name == "sandbox_write":
                    args["content"] = "pwned"
                assert f"({rule})" in await error_of(client, name, args)
        assert canary.read_text() == "outside"
        assert "no sandbox" in await error_of(client, "sandbox_list", {"campaign_id": "cnope"})
        assert "not valid base64" in await error_of(
            client, "sandbox_write", {"campaign_id": cid, "path": "x", "content": "%%%", "encoding": "base64"}
        )


async def test_corpus_tools(data_dir: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Whales\n\nBlue whales are the largest animals ever known to have lived.\n")
    (docs / "broken.txt").write_bytes(b"\x00\x01binary")
    async with connect("inproc", "legacy", data_dir) as client:
        added = await call(client, "corpus_add", {"path": str(docs)})
        assert added["added"] == 1 and added["failed"][0]["path"].endswith("broken.txt")
        assert "binary" in added["failed"][0]["reason"]
        await embedded(client)  # ranked by meaning too: a passage not yet embedded would rank by words alone
        hits = (await call(client, "corpus_search", {"query": "largest animal"}))["hits"]
        assert hits[0]["location"] == "Whales"
        passage = await call(client, "corpus_passage", {"passage_id": hits[0]["passage_id"]})
        assert "Blue whales" in passage["text"]
        listing = await call(client, "corpus_list", {})
        assert listing["documents"] >= 1
        removed = await call(client, "corpus_remove", {"path": str(docs / "a.md")})
        assert removed["passages_removed"] == 1
        assert "no such file" in await error_of(client, "corpus_add", {"path": str(tmp_path / "missing")})
        assert "not in the corpus" in await error_of(client, "corpus_remove", {"path": "/nowhere.md"})
        assert "no passage" in await error_of(client, "corpus_passage", {"passage_id": "pnope"})
        weird = await client.call_tool("tool_call", {"name": "corpus_search", "arguments": {"query": 'NEAR( "*'}})
        assert not weird.is_error and isinstance(structured(weird)["hits"], list)


async def test_a_queued_campaigns_sandbox_takes_notes_at_once(data_dir: Path) -> None:
    """campaign_start's id names a sandbox at once, before any job runs for it (here one waits its turn)."""
    config = {"jobs": {"max_concurrent": 1, "step_delay_s": 5}}
    async with connect("inproc", "legacy", data_dir, config=config) as client:
        running = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
        queued = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
        assert (await call(client, "campaign_status", {"campaign_id": queued}))["phase"] == "queued"
        for cid in (running, queued):
            written = await call(client, "sandbox_write", {"campaign_id": cid, "path": "notes/mine.md", "content": "x"})
            assert written["path"] == "notes/mine.md"
        for cid in (running, queued):
            await call(client, "campaign_cancel", {"campaign_id": cid})
