"""An upstream that cannot answer is named with its state (issue 31 item 20), against real upstream
processes (tests/upstreams/fixture_server.py): a missing tool of a down upstream, tool_search, and
a call cut by the upstream's timeout, which says so and counts towards the breaker only when the
upstream answered nothing else meanwhile.
"""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp import Client

from deepr_mcp.app.root import Root
from deepr_mcp.app.server import build_server
from deepr_mcp.config import Settings
from tests.support import fixture_upstream, structured, text_of


async def test_a_tool_of_a_down_upstream_names_it_and_its_state(empty_data_dir: Path) -> None:
    down = fixture_upstream("meta", "--start", "exit", connect_timeout_s=20)
    settings = Settings(data_dir=empty_data_dir, upstreams=[down, fixture_upstream("good")])  # nothing cached
    async with Root(settings) as root, Client(build_server(root), mode="legacy") as client:
        for call in (
            client.call_tool("meta_x", {}),
            client.call_tool("tool_call", {"name": "meta_x", "arguments": {}}),
        ):
            result = await call
            message = text_of(result)
            assert result.is_error and "upstream 'meta' (stdio " in message, message
            assert "not answering: down (connect failed" in message and "Did you mean" not in message, message
            assert "fixture: exiting at once as asked" in message  # its own last words

        found = structured(await client.call_tool("tool_search", {"query": "echo the given text back"}))
        assert [u["upstream"] for u in found["unavailable_upstreams"]] == ["meta"]
        assert found["unavailable_upstreams"][0]["state"].startswith("down (connect failed")
        markdown = text_of(await client.call_tool("tool_search", {"query": "echo text", "format": "markdown"}))
        assert "Upstream meta is unavailable (down (connect failed" in markdown

        unknown = await client.call_tool("nothing_like_this", {})  # a name no upstream explains: as before
        assert unknown.is_error and text_of(unknown).startswith("Error: unknown tool 'nothing_like_this'")
        assert structured(await client.call_tool("good_echo", {"text": "fine"})) == {"echo": "fine"}


async def test_one_slow_call_does_not_open_the_breaker_a_hung_upstream_does(empty_data_dir: Path) -> None:
    marks = empty_data_dir / "marks"
    marks.mkdir()
    slowpoke = fixture_upstream("fx", "--marks", str(marks), timeout_s=3, failure_threshold=1, breaker_reset_s=600)
    settings = Settings(data_dir=empty_data_dir, upstreams=[slowpoke])
    async with Root(settings) as root, Client(build_server(root), mode="legacy") as client:
        answers: dict[str, str] = {}

        async def slow(key: str, seconds: int) -> None:
            result = await client.call_tool("fx_slow", {"seconds": seconds})
            assert result.is_error and structured(result)["code"] == "upstream_timeout"
            answers[key] = text_of(result)

        async with anyio.create_task_group() as tg:
            tg.start_soon(slow, "slow", 60)
            with anyio.fail_after(30):
                while not (marks / "max-inflight").exists():  # noqa: ASYNC110 - the upstream's mark file
                    await anyio.sleep(0.02)
            fast = await client.call_tool("fx_echo", {"text": "meanwhile"})  # answered while slow waits
            assert structured(fast) == {"echo": "meanwhile"}
        message = answers["slow"]
        assert "slow timed out: no answer within timeout_s (3 s)" in message and "unavailable" not in message
        assert "other calls to it answered meanwhile" in message, message
        assert root.upstreams.connections["fx"].breaker.state == "closed"
        assert structured(await client.call_tool("fx_echo", {"text": "still"})) == {"echo": "still"}

        await slow("hung", 61)  # nothing else answers meanwhile: the upstream looks hung
        assert "counts towards the circuit breaker (1 of 1)" in answers["hung"], answers["hung"]
        refused = await client.call_tool("fx_echo", {"text": "refused"})
        assert refused.is_error and "circuit breaker open after 1 consecutive failures" in text_of(refused)
        found = structured(await client.call_tool("tool_search", {"query": "echo the given text back"}))
        assert found["unavailable_upstreams"][0]["upstream"] == "fx"
        assert found["unavailable_upstreams"][0]["state"].startswith("circuit open")
