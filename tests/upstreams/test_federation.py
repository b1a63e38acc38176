"""Federated tools as clients see them, against a real upstream process (tests/upstreams/fixture_server.py).

The upstream runs as a subprocess over stdio; deepr-mcp runs in-process and is driven through the
SDK client in both protocol eras. Waits are for a condition (a marker file, a search hit), never
for a time.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from tests.support import (
    ERAS,
    Recorder,
    as_principal,
    attempt,
    fixture_upstream,
    principal_server,
    structured,
    text_of,
)


@asynccontextmanager
async def federated(
    data_dir: Path, *upstreams: dict[str, Any], era: str = "legacy", mode: str = "proxy", handler: Any = None
) -> AsyncIterator[tuple[Client, Root]]:
    settings = Settings(data_dir=data_dir, gateway={"mode": mode}, upstreams=list(upstreams))
    async with Root(settings) as root:
        async with Client(build_server(root), mode=ERAS[era], message_handler=handler) as client:
            yield client, root


async def until(condition: Any, what: str) -> None:
    """Wait for ``condition()`` to hold (bounded, so a broken build fails instead of hanging)."""
    with anyio.fail_after(30):
        while not condition():  # noqa: ASYNC110 - a file or a registry entry, not an event
            await anyio.sleep(0.05)
    assert condition(), what


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_upstream_tools_are_found_called_and_passed_on_unchanged(era: str, empty_data_dir: Path) -> None:
    async with federated(empty_data_dir, fixture_upstream(), era=era, mode="full") as (client, _):
        found = structured(await client.call_tool("tool_search", {"query": "echo the given text back"}))
        assert found["hits"][0]["name"] == "fx_echo"
        assert found["hits"][0]["inputSchema"]["required"] == ["text"]  # the upstream's own schema

        # Listed with the upstream's title, annotations and outputSchema.
        listed = {t.name: t for t in (await client.list_tools()).tools}
        echo = listed["fx_echo"]
        assert echo.title == "Echo" and echo.output_schema is not None
        assert echo.annotations is not None and echo.annotations.read_only_hint is True
        assert "fx_dotted_name_with_spaces" in listed  # "dotted.name/with spaces", made valid for every client

        # By tool_call and by name: content and structuredContent exactly as the upstream sent them.
        for result in (
            await client.call_tool("tool_call", {"name": "fx_echo", "arguments": {"text": "héllo"}}),
            await client.call_tool("fx_echo", {"text": "héllo"}),
        ):
            assert not result.is_error
            assert result.content == [types.TextContent(text="héllo")]
            assert result.structured_content == {"echo": "héllo"}

        picture = await client.call_tool("tool_call", {"name": "fx_picture", "arguments": {}})
        assert [c.type for c in picture.content] == ["image", "text"]
        assert isinstance(picture.content[0], types.ImageContent) and picture.content[0].mime_type == "image/png"

        failed = await client.call_tool("fx_fail", {})
        assert failed.is_error and text_of(failed) == "it failed on purpose"  # the upstream's own error, unwrapped

        bad = await client.call_tool("fx_echo", {"text": 42})
        assert bad.is_error and "invalid arguments for fx_echo" in text_of(bad)


async def test_timeout_cancels_upstream_breaker_opens_other_upstream_unaffected(empty_data_dir: Path) -> None:
    marks = empty_data_dir / "marks"
    marks.mkdir()
    slowpoke = fixture_upstream("fx", "--marks", str(marks), timeout_s=1, failure_threshold=2, breaker_reset_s=600)
    async with federated(empty_data_dir, slowpoke, fixture_upstream("other")) as (client, _):
        first = await client.call_tool("fx_slow", {"seconds": 60})
        assert first.is_error
        said = text_of(first)
        assert "upstream 'fx'" in said and "slow timed out: no answer within timeout_s (1 s)" in said
        assert "unavailable" not in text_of(first) and structured(first)["code"] == "upstream_timeout"
        await until(lambda: (marks / "cancelled-60").exists(), "the upstream saw notifications/cancelled")

        second = await client.call_tool("fx_slow", {"seconds": 61})
        assert second.is_error
        refused = await client.call_tool("fx_echo", {"text": "hi"})
        assert refused.is_error
        assert "circuit breaker open after 2 consecutive failures" in text_of(refused)
        assert structured(refused)["code"] == "upstream_unavailable"

        other = await client.call_tool("other_echo", {"text": "still here"})
        assert not other.is_error and structured(other) == {"echo": "still here"}
        local = await client.call_tool("server_info", {})
        assert not local.is_error


async def test_crash_reconnects_and_list_changed_resyncs(empty_data_dir: Path) -> None:
    recorder = Recorder()
    async with federated(empty_data_dir, fixture_upstream(), mode="full", handler=recorder) as (client, root):
        crashed = await client.call_tool("fx_crash", {})
        assert crashed.is_error and "the connection closed during crash" in text_of(crashed)

        again = await client.call_tool("fx_echo", {"text": "back"})  # a new process, a new session
        assert not again.is_error and structured(again) == {"echo": "back"}

        added = await client.call_tool("fx_add_tool", {"name": "freshly_added"})
        assert not added.is_error
        await until(lambda: "fx_freshly_added" in root.registry, "list_changed brought the new tool in")
        with anyio.fail_after(30):  # and deepr told its own client, which re-reads the list
            await recorder.wait_for(lambda r: r.saw("notifications/tools/list_changed"))
        assert "fx_freshly_added" in {t.name for t in (await client.list_tools()).tools}
        hit = structured(await client.call_tool("tool_search", {"query": "freshly added"}))["hits"][0]
        assert hit["name"] == "fx_freshly_added"
        ran = await client.call_tool("fx_freshly_added", {})
        assert text_of(ran) == "freshly_added ran"


async def test_calls_are_bounded_by_max_concurrency(empty_data_dir: Path) -> None:
    marks = empty_data_dir / "marks"
    marks.mkdir()
    async with federated(empty_data_dir, fixture_upstream("fx", "--marks", str(marks), max_concurrency=2)) as (c, _):
        results: list[types.CallToolResult] = []

        async def one(i: int) -> None:
            results.append(await c.call_tool("fx_slow", {"seconds": 0.3 + i / 100}))

        async with anyio.create_task_group() as tg:
            for i in range(5):
                tg.start_soon(one, i)
        assert len(results) == 5 and not any(r.is_error for r in results)
        assert 1 <= int((marks / "max-inflight").read_text()) <= 2


async def test_tools_list_is_coalesced_and_cached_until_list_changed(empty_data_dir: Path) -> None:
    marks = empty_data_dir / "marks"
    marks.mkdir()
    upstream = fixture_upstream("fx", "--marks", str(marks))
    async with federated(empty_data_dir, upstream) as (client, root):
        connection = root.upstreams.connections["fx"]
        listings = lambda: len((marks / "listed").read_text().splitlines())  # noqa: E731
        await client.call_tool("tool_search", {"query": "echo"})  # the first sync
        assert listings() == 1
        connection._invalidate_tools()  # as a list_changed does
        async with anyio.create_task_group() as tg:
            for _ in range(8):
                tg.start_soon(connection.list_tools)
        assert listings() == 2  # eight callers, one request
        await connection.list_tools()
        assert listings() == 2  # cached


async def test_a_result_over_max_result_bytes_is_refused(empty_data_dir: Path) -> None:
    upstream = fixture_upstream("fx", max_result_bytes=1_000_000)
    async with federated(empty_data_dir, upstream) as (client, _):
        big = await client.call_tool("fx_huge", {"megabytes": 1.5})
        assert big.is_error
        assert "returned about 1,572,864 bytes, over this upstream's max_result_bytes (1,000,000)" in text_of(big)
        fine = await client.call_tool("fx_echo", {"text": "after"})
        assert structured(fine) == {"echo": "after"}


async def test_a_100_mb_result_is_dropped_unread_while_others_are_served(empty_data_dir: Path) -> None:
    async with federated(empty_data_dir, fixture_upstream("fx"), fixture_upstream("other")) as (client, _):
        await client.call_tool("tool_search", {"query": "echo"})  # both sessions open
        answers: dict[str, types.CallToolResult] = {}

        async def huge() -> None:
            answers["huge"] = await client.call_tool("fx_huge", {"megabytes": 100})

        async with anyio.create_task_group() as tg:
            tg.start_soon(huge)
            for i in range(5):  # served while the 100 MB line streams in
                echoed = await client.call_tool("other_echo", {"text": f"meanwhile {i}"})
                assert structured(echoed) == {"echo": f"meanwhile {i}"}
        message = text_of(answers["huge"])
        assert answers["huge"].is_error and "upstream 'fx' tool huge: the upstream's answer was over" in message
        assert "deepr dropped it unread; ask for less" in message
        assert structured(await client.call_tool("fx_echo", {"text": "fx too"})) == {"echo": "fx too"}


async def test_a_down_upstream_stays_searchable_and_says_why(empty_data_dir: Path) -> None:
    async with federated(empty_data_dir, fixture_upstream()) as (client, _):
        await client.call_tool("tool_search", {"query": "echo"})  # synced once: the listing is kept on disk
    gone = fixture_upstream() | {"command": str(empty_data_dir / "no-such-server")}
    async with federated(empty_data_dir, gone) as (client, _):
        hit = structured(await client.call_tool("tool_search", {"query": "echo the given text back"}))["hits"][0]
        assert hit["name"] == "fx_echo"
        down = await client.call_tool("tool_call", {"name": "fx_echo", "arguments": {"text": "hi"}})
        assert down.is_error
        message = text_of(down)
        assert "upstream 'fx'" in message and "connect failed: command not found" in message
        again = await client.call_tool("fx_echo", {"text": "hi"})  # within the backoff: refused at once, same story
        assert again.is_error and "down (connect failed: command not found" in text_of(again)
        assert not (await client.call_tool("server_info", {})).is_error


async def test_a_colliding_name_stays_local(empty_data_dir: Path) -> None:
    async with federated(empty_data_dir, fixture_upstream("fx", prefix="")) as (client, root):
        await client.call_tool("tool_search", {"query": "echo"})
        assert root.registry.get("corpus_search").upstream is None  # the local tool kept its name
        assert root.registry.get("echo").upstream == "fx"
        skipped = root.upstreams.catalogues["fx"].skipped
        assert "already a local tool's name" in skipped["corpus_search"]
        assert "the gateway's own tool" in skipped["tool_search"]
        hits = structured(await client.call_tool("tool_search", {"query": "echo the given text back"}))["hits"]
        assert hits[0]["name"] == "echo"  # the gateway's tool_search answered, not the upstream's
        result = await client.call_tool("corpus_search", {"query": "cable"})
        assert "corpus_search: " not in text_of(result)  # not the upstream's answer


async def test_upstream_tools_need_the_scope_their_upstream_sets(empty_data_dir: Path) -> None:
    upstreams = [fixture_upstream("fx", scope="read"), fixture_upstream("guarded")]
    async with principal_server(empty_data_dir, upstreams=upstreams) as (_, base):
        async with as_principal(base, "reader") as reader:
            ok, text = await attempt(reader, "fx_echo", {"text": "read is enough"})
            assert ok, text
            ok, text = await attempt(reader, "guarded_echo", {"text": "needs research"})
            assert not ok and "needs scope 'research'" in text
        async with as_principal(base, "researcher") as researcher:
            ok, text = await attempt(researcher, "guarded_echo", {"text": "fine"})
            assert ok, text


async def test_a_client_that_gives_up_cancels_the_upstream_call_too(empty_data_dir: Path) -> None:
    marks = empty_data_dir / "marks"
    marks.mkdir()
    async with federated(empty_data_dir, fixture_upstream("fx", "--marks", str(marks))) as (client, _):
        await client.call_tool("tool_search", {"query": "slow"})  # the session is open
        with pytest.raises(MCPError):  # the client's own read timeout: it sends notifications/cancelled
            await client.call_tool("fx_slow", {"seconds": 45}, read_timeout_seconds=1)
        await until(lambda: (marks / "cancelled-45").exists(), "the cancel travelled on to the upstream")
        assert structured(await client.call_tool("fx_echo", {"text": "next"})) == {"echo": "next"}


async def test_full_mode_tools_list_is_paged_with_next_cursor(empty_data_dir: Path) -> None:
    """A federated catalogue of 1,200 tools: pages of 500 with nextCursor, every tool once; a bad cursor is -32602."""
    async with federated(empty_data_dir, fixture_upstream("big", "--tools", "1200"), mode="full") as (client, _):
        names: list[str] = []
        cursor: str | None = None
        pages = 0
        while True:
            page = await client.list_tools(cursor=cursor, cache_mode="bypass")
            assert len(page.tools) <= 500
            names += [t.name for t in page.tools]
            pages += 1
            cursor = page.next_cursor
            if cursor is None:
                break
        assert pages >= 3 and len(names) == len(set(names)) and sum(n.startswith("big") for n in names) >= 1200
        with pytest.raises(MCPError, match="invalid cursor"):
            await client.list_tools(cursor="nope", cache_mode="bypass")
