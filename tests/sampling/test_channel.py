"""ClientSampling through its ports: who is connected, who subscribes, who may read the campaign."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from deepr_mcp.auth.principals import Principal
from deepr_mcp.sampling.channel import ClientSampling
from tests.doubles import new_campaign

REQUEST = types.CreateMessageRequest(
    params=types.CreateMessageRequestParams(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hi"))],
        max_tokens=10,
    )
)


def answer(text: str = "- a claim [1]") -> types.CreateMessageResult:
    return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=text), model="m")


class FakeConnection:
    def __init__(self, *answers: Any, can_sample: bool = True) -> None:
        self.answers = list(answers)
        self.can_sample = can_sample
        self.asked = 0

    def check_capability(self, capability: types.ClientCapabilities) -> bool:
        return self.can_sample and capability.sampling is not None

    async def send_request(self, request: types.CreateMessageRequest) -> Any:
        self.asked += 1
        next_answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(next_answer, BaseException):
            raise next_answer
        if next_answer == "hang":
            await anyio.sleep_forever()
        return next_answer


def channel(
    connections: dict[str, FakeConnection],
    subscribers: list[str],
    principals: dict[str, Principal] | None = None,
    timeout_s: float = 5,
) -> ClientSampling:
    principal_of = principals.get if principals is not None else None
    return ClientSampling(
        connections.get,  # type: ignore[arg-type]
        lambda uri: subscribers,
        timeout_s=timeout_s,
        principal_of=principal_of,
    )


async def test_the_starter_is_asked_first() -> None:
    owner, other = FakeConnection(answer("owner's")), FakeConnection(answer("other's"))
    sample = channel({"owner": owner, "other": other}, ["other"]).for_campaign(new_campaign(owner_connection="owner"))
    result = await sample(REQUEST)
    assert result is not None and result.content.text == "owner's" and owner.asked == 1 and not other.asked


async def test_only_subscribers_that_can_sample_and_may_read_the_campaign_are_asked() -> None:
    campaign = new_campaign(owner_connection="mute", owner="alice")
    alice, bob = Principal(name="alice", scopes=frozenset()), Principal(name="bob", scopes=frozenset())
    connections = {
        "mute": FakeConnection(answer(), can_sample=False),
        "bobs": FakeConnection(answer("bob's")),
        "alices": FakeConnection(answer("alice's")),
    }
    found = channel(connections, ["bobs", "alices", "gone"], {"mute": alice, "bobs": bob, "alices": alice})
    assert found.candidates(campaign) == ["alices"]
    result = await found.for_campaign(campaign)(REQUEST)
    assert result is not None and result.content.text == "alice's" and not connections["bobs"].asked


async def test_a_connection_that_failed_is_not_asked_again_in_that_run() -> None:
    refused = MCPError(code=-1, message="User rejected sampling request")
    for failure in (refused, answer("   "), "hang", ValueError("not a result")):
        refusing, backup = FakeConnection(failure), FakeConnection(answer("backup's"))
        sample = channel({"owner": refusing, "sub": backup}, ["sub"], timeout_s=0.1).for_campaign(
            new_campaign(owner_connection="owner")
        )
        for _ in range(3):
            result = await sample(REQUEST)
            assert result is not None and result.content.text == "backup's"
        assert refusing.asked == 1 and backup.asked == 3


async def test_nobody_to_ask_is_none() -> None:
    gone = channel({}, ["gone"]).for_campaign(new_campaign(owner_connection="gone"))
    assert await gone(REQUEST) is None
