"""OpenAI-compatible and Anthropic providers against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import aiohttp
import pytest

from deepr_mcp.errors import ProviderError
from deepr_mcp.research.pricing import Pricing
from deepr_mcp.research.providers.anthropic_messages import AnthropicProvider
from deepr_mcp.research.providers.base import Message
from deepr_mcp.research.providers.openai_compat import OpenAIProvider
from tests.fake_llm import Scripted, fake_llm

KEY = "sk-test-secret-key-123"
MESSAGES = [Message("system", "Be brief."), Message("user", "Say hi")]
OK_OPENAI = {
    "model": "gpt-4o-mini",
    "choices": [{"message": {"content": "hi"}}],
    "usage": {"prompt_tokens": 1000, "completion_tokens": 500},
}


def openai(session: aiohttp.ClientSession, url: str, **kw: object) -> OpenAIProvider:
    options = {"max_retries": 2, "backoff_base_s": 0.01, "timeout_s": 5.0, **kw}
    return OpenAIProvider(session, base_url=f"{url}/v1", api_key=KEY, model="gpt-4o-mini", **options)  # type: ignore[arg-type]


def anthropic(session: aiohttp.ClientSession, url: str, **kw: object) -> AnthropicProvider:
    options = {"max_retries": 2, "backoff_base_s": 0.01, "timeout_s": 5.0, **kw}
    return AnthropicProvider(session, api_key=KEY, model="claude-sonnet-4-20250514", base_url=url, **options)  # type: ignore[arg-type]


async def test_openai_success_usage_becomes_cost() -> None:
    async with fake_llm() as llm, aiohttp.ClientSession() as session:
        llm.script.append(Scripted(body=OK_OPENAI))
        completion = await openai(session, llm.url).complete(MESSAGES)
        assert completion.text == "hi" and completion.usage.input_tokens == 1000
        assert Pricing().cost(completion.model, 1000, 500) == pytest.approx((1000 * 0.15 + 500 * 0.60) / 1e6)
        assert llm.headers_seen[0]["Authorization"] == f"Bearer {KEY}"
        assert llm.requests[0]["messages"][0] == {"role": "system", "content": "Be brief."}


async def test_429_then_success_is_retried_honouring_retry_after() -> None:
    async with fake_llm() as llm, aiohttp.ClientSession() as session:
        llm.script += [
            Scripted(status=429, body={"error": {"message": "slow down"}}, headers={"Retry-After": "0"}),
            Scripted(body=OK_OPENAI),
        ]
        assert (await openai(session, llm.url).complete(MESSAGES)).text == "hi"
        assert len(llm.requests) == 2


async def test_repeated_500_gives_up_after_max_retries() -> None:
    async with fake_llm() as llm, aiohttp.ClientSession() as session:
        llm.script += [Scripted(status=500, body={"error": {"message": "boom"}})] * 3
        with pytest.raises(ProviderError, match="HTTP 500: boom") as caught:
            await openai(session, llm.url).complete(MESSAGES)
        assert caught.value.retryable and len(llm.requests) == 3


async def test_401_is_not_retried_names_the_variable_and_hides_the_key() -> None:
    async with fake_llm() as llm, aiohttp.ClientSession() as session:
        llm.script.append(Scripted(status=401, body={"error": {"message": f"bad key {KEY}"}}))
        with pytest.raises(ProviderError) as caught:
            await openai(session, llm.url).complete(MESSAGES)
        assert "DEEPR_OPENAI_API_KEY" in caught.value.message and KEY not in caught.value.message
        assert len(llm.requests) == 1


async def test_timeout_is_a_retryable_provider_error() -> None:
    async with fake_llm() as llm, aiohttp.ClientSession() as session:
        llm.script += [Scripted(body=OK_OPENAI, delay_s=1.0)] * 2
        with pytest.raises(ProviderError, match="timed out") as caught:
            await openai(session, llm.url, timeout_s=0.2, max_retries=1).complete(MESSAGES)
        assert caught.value.retryable


@pytest.mark.parametrize(("body", "message"), [(b"<html>oops</html>", "not JSON"), ({"nothing": 1}, "no choices")])
async def test_malformed_bodies(body: object, message: str) -> None:
    async with fake_llm() as llm, aiohttp.ClientSession() as session:
        llm.script.append(Scripted(body=body))
        with pytest.raises(ProviderError, match=message):
            await openai(session, llm.url).complete(MESSAGES)


async def test_streaming_both_shapes() -> None:
    async with fake_llm() as llm, aiohttp.ClientSession() as session:
        msgs = [Message("system", "TASK: summary\nWrite."), Message("user", "Question: q\n\nFindings:\n- A fact [1]")]
        streamed = await openai(session, llm.url, stream=True).complete(msgs)
        assert streamed.text == "A fact [1]" and streamed.usage.output_tokens > 0
        streamed = await anthropic(session, llm.url, stream=True).complete(msgs)
        assert streamed.text == "A fact [1]" and streamed.usage.input_tokens > 0


async def test_anthropic_shape_system_field_and_529_retry() -> None:
    async with fake_llm() as llm, aiohttp.ClientSession() as session:
        ok = {
            "model": "claude-sonnet-4-20250514",
            "content": [{"type": "text", "text": "hello"}],
            "usage": {"input_tokens": 10, "output_tokens": 3},
        }
        llm.script += [Scripted(status=529, body={"error": {"message": "overloaded"}}), Scripted(body=ok)]
        completion = await anthropic(session, llm.url).complete(MESSAGES)
        assert completion.text == "hello" and completion.usage.output_tokens == 3
        assert llm.requests[-1]["system"] == "Be brief." and all(
            m["role"] != "system" for m in llm.requests[-1]["messages"]
        )
        assert llm.headers_seen[-1]["x-api-key"] == KEY and llm.headers_seen[-1]["anthropic-version"] == "2023-06-01"
        assert Pricing().cost(completion.model, 10, 3) == pytest.approx((10 * 3 + 3 * 15) / 1e6)
        llm.script.append(Scripted(body={"content": "not a list"}))
        with pytest.raises(ProviderError, match="no content list"):
            await anthropic(session, llm.url).complete(MESSAGES)


def test_pricing_prefix_unknown_and_override() -> None:
    pricing = Pricing(override_model="my-local-model", override_input_per_mtok=1.0, override_output_per_mtok=2.0)
    assert pricing.price("gpt-4o-mini-2024-07-18").input_per_mtok == 0.15
    assert pricing.price("openai/gpt-4o").input_per_mtok == 2.50
    assert not pricing.price("mystery-model").known
    assert pricing.cost("my-local-model", 1_000_000, 1_000_000) == 3.0


async def test_openai_without_a_key_is_refused_before_any_request(monkeypatch: pytest.MonkeyPatch) -> None:
    from deepr_mcp.config import Settings
    from deepr_mcp.research.providers.factory import make_provider, needs_key

    for key in [k for k in __import__("os").environ if k.startswith("DEEPR_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("DEEPR_CONFIG", "")
    async with fake_llm() as llm, aiohttp.ClientSession() as session:
        with pytest.raises(
            ProviderError, match=r"no API key for https://api\.openai\.com/v1; set DEEPR_OPENAI_API_KEY"
        ):
            make_provider(Settings(), session, "openai")
        blank = Settings.model_validate({"openai": {"api_key": "  "}})
        with pytest.raises(ProviderError, match="no API key"):
            make_provider(blank, session, "openai")
        local = Settings.model_validate({"openai": {"base_url": f"{llm.url}/v1"}})  # loopback: no key needed
        assert (await make_provider(local, session, "openai").complete(MESSAGES)).text
        assert llm.requests  # and it was really asked
    assert needs_key("https://openrouter.ai/api/v1") and not needs_key("http://192.168.1.20:8000/v1")
    assert not needs_key("http://localhost:11434/v1")


async def test_the_local_provider_computes_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its rules are CPU work: run on the loop they held up other requests and lease heartbeats."""
    import threading

    from deepr_mcp.research.providers import local
    from tests.research.requests import findings_request

    threads: list[threading.Thread] = []
    real = local.findings_text

    def recording(request: object, near: object = None) -> str:
        threads.append(threading.current_thread())
        return real(request, near)  # type: ignore[arg-type]

    monkeypatch.setattr(local, "findings_text", recording)
    request = findings_request("Why did the cable fail?", [(1, "cables.md", "Water got into the cable.")])
    done = await local.LocalProvider().research(request)
    assert done.provider == "local" and threads and threads[0] is not threading.main_thread()
