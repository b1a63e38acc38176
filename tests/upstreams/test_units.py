"""The federation's small parts on their own: settings, names, the breaker."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deepr_mcp.config import load_settings
from deepr_mcp.errors import InvalidInput
from deepr_mcp.upstreams.breaker import CircuitBreaker
from deepr_mcp.upstreams.catalogue import published_name
from deepr_mcp.upstreams.settings import UpstreamSettings
from deepr_mcp.upstreams.stdio import request_id


def test_toml_upstreams_and_their_defaults(tmp_path: Path) -> None:
    toml = tmp_path / "c.toml"
    toml.write_text(
        '[[upstreams]]\nname = "docs"\ncommand = "docs-server"\nargs = ["--stdio"]\n'
        '[[upstreams]]\nname = "remote"\nurl = "http://127.0.0.1:9/mcp"\nheaders = {Authorization = "Bearer s3cret"}\n'
        '[[upstreams]]\nname = "old"\nurl = "http://127.0.0.1:9/events"\ntransport = "sse"\n'
        'allow = ["get_*"]\ndeny = ["get_secret"]\n'
    )
    docs, remote, old = load_settings(toml).upstreams
    assert (docs.kind, remote.kind, old.kind) == ("stdio", "http", "sse")
    assert (docs.sse_fallback, remote.sse_fallback, old.sse_fallback) == (False, True, False)
    assert (docs.tool_prefix, docs.timeout_s, docs.max_concurrency) == ("docs_", 30.0, 8)
    assert old.takes("get_page") and not old.takes("get_secret") and not old.takes("put_page")
    assert "s3cret" not in str(load_settings(toml).public_dict())


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ('name = "x"\ncommand = "a"\nurl = "http://127.0.0.1/mcp"', "exactly one of command"),
        ('name = "x"', "exactly one of command"),
        ('name = "x y"\ncommand = "a"', "upstreams.0.name"),
        ('name = "x"\nurl = "file:///etc/passwd"', "http:// or https://"),
        ('name = "x"\ncommand = "a"\nprefix = "a.b"', "letters, digits"),
        ('name = "x"\ncommand = "a"\ntransport = "sse"', "needs a url"),
        ('name = "x"\ncommand = "a"\ntimeout_s = 0', "upstreams.0.timeout_s"),
        ('name = "x"\ncommand = "a"\nsurprise = 1', "upstreams.0.surprise"),
        ('name = "x"\ncommand = "a"\n[[upstreams]]\nname = "x"\ncommand = "b"', "must be unique"),
    ],
)
def test_bad_upstream_config_is_a_clear_error(entry: str, problem: str, tmp_path: Path) -> None:
    toml = tmp_path / "c.toml"
    toml.write_text(f"[[upstreams]]\n{entry}\n")
    with pytest.raises(InvalidInput, match="invalid configuration") as caught:
        load_settings(toml)
    assert problem in caught.value.message


def test_published_names_are_valid_for_every_client() -> None:
    assert published_name("fs_", "read_text_file") == "fs_read_text_file"
    assert published_name("every_", "get-sum") == "every_get-sum"
    assert published_name("x_", "dotted.name/with spaces") == "x_dotted_name_with_spaces"
    assert published_name("", "résumé") == "r_sum_"
    long = published_name("docs_", "a" * 100)
    assert len(long) == 64 and long != published_name("docs_", "a" * 99)
    assert UpstreamSettings(name="docs", command="x", prefix="{name}-v2-").tool_prefix == "docs-v2-"


def test_breaker_opens_refuses_then_lets_one_trial_through() -> None:
    now = [0.0]
    breaker = CircuitBreaker(threshold=3, reset_s=10, clock=lambda: now[0])
    for _ in range(2):
        breaker.failure("timed out")
    assert breaker.state == "closed" and breaker.refusal() is None
    breaker.failure("timed out")
    refusal = breaker.refusal()
    assert breaker.state == "open" and refusal is not None
    assert "after 3 consecutive failures (last: timed out); retrying in 10 s" in refusal
    now[0] = 11
    assert breaker.state == "half-open"
    assert breaker.refusal() is None  # the one trial call
    assert "a trial call is in flight" in (breaker.refusal() or "")
    now[0] = 21.5
    assert breaker.refusal() is None  # a trial whose caller never reported back expires after reset_s
    breaker.failure("still down")
    assert breaker.state == "open"  # a failed trial reopens at once
    now[0] = 32
    assert breaker.refusal() is None
    breaker.success()
    assert breaker.state == "closed" and breaker.failures == 0


def test_the_id_of_an_oversized_message_is_read_from_either_end() -> None:
    assert request_id('{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"xxx', "") == 7
    assert request_id('{"result":{"content":[{"text":"x', 'xx"}]},"jsonrpc":"2.0","id":"req-9"}') == "req-9"
    assert request_id('{"result":{"content":[{"text":"x', 'xxxx"}]}}') is None


async def test_limited_transport_counts_inflated_bytes_per_answer_and_per_event() -> None:
    import gzip
    import zlib

    import httpx2

    from deepr_mcp.upstreams.http_limit import BodyTooLarge, LimitedTransport, UnreadableBody

    events = b"".join(b"data: %d\n\n" % i for i in range(5000))  # 50 KB of small events
    raw_deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    bodies = {
        "/events": (events, {"content-type": "text/event-stream"}),
        "/one-event": (b"data: " + b"x" * 5000 + b"\n\n", {"content-type": "text/event-stream"}),
        "/double-gzip": (gzip.compress(gzip.compress(b"y" * 500)), {"content-encoding": "gzip, gzip"}),
        "/raw-deflate": (raw_deflate.compress(b"z" * 500) + raw_deflate.flush(), {"content-encoding": "deflate"}),
        "/bomb": (gzip.compress(b"0" * 10_000_000), {"content-encoding": "gzip"}),
        "/br": (b"whatever", {"content-encoding": "br"}),
    }

    def serve(request: httpx2.Request) -> httpx2.Response:
        body, headers = bodies[request.url.path]
        return httpx2.Response(200, content=body, headers=headers)

    transport = LimitedTransport(4096, inner=httpx2.MockTransport(serve))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        assert (await http.get("/events")).content == events  # many events, each small: all read
        assert (await http.get("/double-gzip")).content == b"y" * 500
        assert (await http.get("/raw-deflate")).content == b"z" * 500
        for path, error, said in (
            ("/one-event", BodyTooLarge, "one event of the upstream's event stream"),
            ("/bomb", BodyTooLarge, "passed 4,096 bytes (decompressed)"),
            ("/br", UnreadableBody, "Content-Encoding 'br'"),
        ):
            with pytest.raises(error, match=re.escape(said)):
                await http.get(path)
