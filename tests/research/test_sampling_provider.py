"""SamplingProvider: the engine's typed request as a sampling request, the answer as a completion,
and the fallback provider for a request no client could take."""

from __future__ import annotations

import mcp_types as types

from deepr_mcp.research.providers.base import Completion, FindingsRequest, Request, SourcePassage
from deepr_mcp.research.providers.sampling import SamplingProvider, sampling_request
from deepr_mcp.research.reading.analysis import analyse

QUESTION = "How do I keep the kiln from cracking glazes when it cools?"
PASSAGE = SourcePassage(1, "p1", "kiln.md, Cooling", "Cool the kiln slowly below 600 degrees to avoid crazing.")


def findings() -> FindingsRequest:
    return FindingsRequest(QUESTION, analyse(QUESTION), QUESTION, (PASSAGE,), max_findings=3)


class Fallback:
    name, model = "local", "extractive"

    def __init__(self) -> None:
        self.asked: list[Request] = []

    async def research(self, request: Request, *, max_tokens: int = 1024) -> Completion:
        self.asked.append(request)
        return Completion("- from the fallback [1]", provider="local", model="extractive")


def test_the_request_is_rendered_with_its_system_prompt_apart() -> None:
    request = sampling_request(findings(), max_tokens=700)
    params = request.params
    assert params.system_prompt is not None and params.system_prompt.startswith("TASK: findings")
    assert [m.role for m in params.messages] == ["user"]
    text = params.messages[0].content
    assert isinstance(text, types.TextContent) and "[1] (from: kiln.md, Cooling)" in text.text
    assert params.max_tokens == 700 and params.include_context == "none" and params.temperature == 0.0


async def test_the_clients_answer_is_the_completion() -> None:
    async def sampler(request: types.CreateMessageRequest) -> types.CreateMessageResult:
        text = types.TextContent(type="text", text="- Cool the kiln slowly below 600 degrees. [1]")
        return types.CreateMessageResult(role="assistant", content=text, model="their-model")

    fallback = Fallback()
    completion = await SamplingProvider(sampler, fallback).research(findings())
    assert completion.text.endswith("[1]") and (completion.provider, completion.model) == ("client", "their-model")
    assert completion.usage.input_tokens == 0 and not fallback.asked


async def test_no_client_or_no_text_goes_to_the_fallback() -> None:
    async def nobody(request: types.CreateMessageRequest) -> None:
        return None

    async def picture(request: types.CreateMessageRequest) -> types.CreateMessageResult:
        image = types.ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png")
        return types.CreateMessageResult(role="assistant", content=image, model="painter")

    for sampler in (nobody, picture):
        fallback = Fallback()
        completion = await SamplingProvider(sampler, fallback).research(findings())
        assert completion.provider == "local" and len(fallback.asked) == 1


async def test_an_answer_far_over_max_tokens_is_cut() -> None:
    async def flood(request: types.CreateMessageRequest) -> types.CreateMessageResult:
        text = types.TextContent(type="text", text="- word [1]\n" * 200_000)
        return types.CreateMessageResult(role="assistant", content=text, model="verbose")

    completion = await SamplingProvider(flood, Fallback()).research(findings(), max_tokens=100)
    assert len(completion.text) <= 1600
