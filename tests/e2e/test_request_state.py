"""``requestState`` is sealed (issue 31 item 16): a client can neither edit nor forge it.

A 2026-07-28 client over real HTTP gets the budget question as ``input_required``; the state it
must echo is opaque. Any edit, or a plain state written by hand with a forged attempt number, is
refused with -32602 and the question stays open; the untouched state answers it.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from deepr_mcp.config import Settings
from tests.campaigns import QUESTION, TINY_BUDGET, priced
from tests.clients import call, modern_client
from tests.fake_llm import fake_llm
from tests.principals import as_principal, principal_token, principals_config
from tests.servers import config_env, http_server, inprocess_http, inprocess_services


def status_call(cid: str) -> dict[str, Any]:
    return {"name": "tool_call", "arguments": {"name": "campaign_status", "arguments": {"campaign_id": cid}}}


def tampered(state: str) -> str:
    middle = len(state) // 2
    return state[:middle] + ("A" if state[middle] != "A" else "B") + state[middle + 1 :]


async def test_a_tampered_or_forged_request_state_is_refused(data_dir: Path) -> None:
    async with (
        fake_llm() as llm,
        http_server(
            data_dir, **config_env(priced(llm.url, timeout_s=300))
        ) as base,  # the default decision never comes first
        Client(f"{base}/mcp", mode="legacy") as starter,
        modern_client(base) as modern,
    ):
        cid = (await call(starter, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
        with anyio.fail_after(120):  # a loaded machine may need more than one wait for the question
            until_asked = {"campaign_id": cid, "until": "decision", "timeout_s": 30}
            while not (await call(starter, "campaign_wait", until_asked))["decision_pending"]:
                pass
        question_id = (await call(starter, "campaign_status", {"campaign_id": cid}))["budget_question"]["id"]
        asked = await modern.result("tools/call", status_call(cid))
        assert asked["resultType"] == "input_required", asked
        state = asked["requestState"]
        assert question_id not in state  # opaque: the client cannot read what it echoes

        invalid = {"action": "accept", "content": {"decision": "approve_override"}}  # no new_budget
        tag = hashlib.sha256(b"local").hexdigest()[:16]
        for forged in [tampered(state), f"{question_id}#2#{tag}", f"{question_id}#1#{tag}", state + "x"]:
            retry = {**status_call(cid), "inputResponses": {"budget": invalid}, "requestState": forged}
            error = await modern.error("tools/call", retry)
            assert error["code"] == -32602 and "requestState" in error["message"], error
        status = await call(starter, "campaign_status", {"campaign_id": cid})
        assert status["phase"] == "awaiting_approval" and status["decisions"] == []  # nothing was decided

        good = {"action": "accept", "content": {"decision": "approve_override", "new_budget": 1.0}}
        retry = {**status_call(cid), "inputResponses": {"budget": good}, "requestState": state}
        done = await modern.result("tools/call", retry)
        assert done.get("resultType", "complete") == "complete" and not done.get("isError"), done
        status = await call(starter, "campaign_status", {"campaign_id": cid})
        assert [(d["decision"], d["channel"]) for d in status["decisions"]] == [("approve_override", "input_required")]


KEY = "a-request-state-key-for-this-test-only-0123456789"
DECIDERS = {"researcher": ["read", "research", "approve"], "other": ["read", "research", "approve"]}
"""Two principals who may each answer their own budget questions."""


def expired_state() -> str:
    """A state sealed under the server's own key whose hour is over (no test waits an hour)."""
    from mcp.server.request_state import AESGCMRequestStateCodec, compact_json

    now = time.time()
    claims = {"v": 1, "iat": now - 7200, "exp": now - 3600, "m": "tools/call", "s": "anything"}
    return AESGCMRequestStateCodec([KEY]).seal(compact_json(claims).encode())


async def test_a_refused_request_state_says_what_was_wrong_and_to_retry(data_dir: Path) -> None:
    """Issue 31 item 4: the SDK's refusal said only "Invalid or expired requestState". Each fault now
    says what it was and that the original request should be sent again; none names the campaign's
    owner or shows its question, and nothing is decided by a refused call."""
    async with fake_llm() as llm:
        config = {**priced(llm.url, timeout_s=300), "store": {"request_state_key": KEY}}
        settings = Settings(data_dir=data_dir, auth=principals_config(DECIDERS), **config)
        async with (
            inprocess_services(settings) as services,
            inprocess_http(services) as base,
            as_principal(base, "researcher") as starter,
            modern_client(base, principal_token("researcher")) as owner,
            modern_client(base, principal_token("other")) as stranger,
        ):
            cid = (await call(starter, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
            with anyio.fail_after(120):
                until_asked = {"campaign_id": cid, "until": "decision", "timeout_s": 30}
                while not (await call(starter, "campaign_wait", until_asked))["decision_pending"]:
                    pass
            asked = await owner.result("tools/call", status_call(cid))
            assert asked["resultType"] == "input_required", asked
            state = asked["requestState"]
            answer = {"budget": {"action": "accept", "content": {"decision": "abort"}}}

            other_call = {"name": "tool_call", "arguments": {"name": "budget_get", "arguments": {"campaign_id": cid}}}
            cases = [
                (owner, status_call(cid), tampered(state), "not_issued_here", "altered or cut short"),
                (owner, status_call(cid), expired_state(), "expired", "it has expired"),
                (owner, other_call, state, "other_request", "issued for a different request"),
                (stranger, status_call(cid), state, "other_caller", "issued to a different caller"),
            ]
            for client, request, sent, cause, why in cases:
                error = await client.error("tools/call", {**request, "inputResponses": answer, "requestState": sent})
                assert error["code"] == -32602 and error["data"] == {"reason": "invalid_request_state", "cause": cause}
                message = error["message"]
                assert message.startswith("requestState not accepted: ") and why in message, (cause, message)
                assert "Send the original request again" in message and "without requestState" in message
                assert "researcher" not in message and QUESTION not in message and "Traceback" not in message
            status = await call(starter, "campaign_status", {"campaign_id": cid})
            assert status["phase"] == "awaiting_approval" and status["decisions"] == []  # nothing was decided

            again = await owner.result("tools/call", status_call(cid))  # what the message says to do
            assert again["resultType"] == "input_required" and again["requestState"] != state
