"""Ownership over real HTTP: each principal sees its own campaigns and experts, and what was shared."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from tests.campaigns import QUESTION
from tests.clients import attempt, call, structured
from tests.principals import as_principal, principal_server


async def start(client, question: str = QUESTION) -> str:  # type: ignore[no-untyped-def]
    return (await call(client, "campaign_start", {"question": question}))["campaign_id"]


async def test_campaigns_are_private_until_shared(data_dir: Path) -> None:
    async with principal_server(data_dir) as (_, base):
        async with as_principal(base, "researcher") as owner, as_principal(base, "other") as other:
            cid = await start(owner)
            mine = await call(owner, "campaign_list", {})
            assert [c["campaign_id"] for c in mine["campaigns"]] == [cid]
            assert mine["campaigns"][0]["owner"] == "researcher"
            assert (await call(other, "campaign_list", {}))["total"] == 0
            for tool, args in [
                ("campaign_status", {"campaign_id": cid}),
                ("campaign_wait", {"campaign_id": cid, "timeout_s": 1}),
                ("campaign_report", {"campaign_id": cid}),
                ("sandbox_list", {"campaign_id": cid}),
                ("sandbox_read", {"campaign_id": cid, "path": "plan.md"}),
                ("budget_get", {"campaign_id": cid}),
                ("campaign_cancel", {"campaign_id": cid}),
                ("campaign_follow_up", {"campaign_id": cid, "question": "and then?"}),
            ]:
                ok, text = await attempt(other, tool, args)
                assert not ok, tool
                assert "belongs to principal 'researcher' and is not shared with 'other'" in text, (tool, text)
            ok, text = await attempt(other, "campaign_share", {"campaign_id": cid, "principals": ["other"]})
            assert not ok and "only its owner" in text
            shared = await call(owner, "campaign_share", {"campaign_id": cid, "principals": ["other"]})
            assert shared["shared_with"] == ["other"]
            assert [c["campaign_id"] for c in (await call(other, "campaign_list", {}))["campaigns"]] == [cid]
            assert (await call(other, "campaign_status", {"campaign_id": cid}))["id"] == cid


async def test_share_with_all_and_bad_share_arguments(data_dir: Path) -> None:
    async with principal_server(data_dir) as (_, base):
        async with as_principal(base, "researcher") as owner, as_principal(base, "reader") as reader:
            cid = await start(owner)
            for bad in [[], "everyone", ["has space"], [""], ["x" * 513], ["*"]]:
                ok, text = await attempt(owner, "campaign_share", {"campaign_id": cid, "principals": bad})
                assert not ok and "principals" in text, (bad, text)
            assert (await call(owner, "campaign_share", {"campaign_id": cid, "principals": "all"}))["shared_with"] == [
                "*"
            ]
            assert (await call(reader, "campaign_list", {}))["total"] == 1


async def test_resources_follow_ownership(data_dir: Path) -> None:
    async with principal_server(data_dir) as (_, base):
        async with as_principal(base, "researcher") as owner, as_principal(base, "other") as other:
            cid = await start(owner)
            uri = f"deepr://campaigns/{cid}/status"
            assert any(str(r.uri) == uri for r in (await owner.list_resources()).resources)
            assert not any(cid in str(r.uri) for r in (await other.list_resources()).resources)
            assert (await owner.read_resource(uri)).contents
            with pytest.raises(MCPError, match="not shared with 'other'"):
                await other.read_resource(uri)
            with pytest.raises(MCPError, match="not shared with 'other'"):
                await other.subscribe_resource(uri)
            await owner.subscribe_resource(uri)


async def test_modern_listen_and_wait_follow_ownership(data_dir: Path) -> None:
    async with principal_server(data_dir) as (_, base):
        async with as_principal(base, "researcher", "modern") as owner, as_principal(base, "other", "modern") as other:
            cid = await start(owner)
            uri = f"deepr://campaigns/{cid}/status"
            with pytest.raises(MCPError, match="not shared with 'other'"):
                with anyio.fail_after(30):
                    async with other.listen(resource_subscriptions=[uri]):
                        pass
            ok, text = await attempt(other, "campaign_wait", {"campaign_id": cid, "timeout_s": 1})
            assert not ok and "not shared" in text
            await call(owner, "campaign_share", {"campaign_id": cid, "principals": ["other"]})
            assert (await call(other, "campaign_wait", {"campaign_id": cid, "timeout_s": 1}))["version"] >= 1


async def test_experts_belong_to_their_creator(data_dir: Path) -> None:
    async with principal_server(data_dir) as (_, base):
        async with as_principal(base, "researcher") as owner, as_principal(base, "other") as other:
            expert = (await call(owner, "expert_create", {"name": "Cables"}))["expert"]
            assert [e["expert_id"] for e in (await call(owner, "expert_list", {}))["experts"]] == [expert["id"]]
            assert (await call(other, "expert_list", {}))["experts"] == []
            ok, text = await attempt(other, "expert_profile", {"expert_id": expert["id"]})
            assert not ok and "expert" in text and "not shared with 'other'" in text
            resources = [str(r.uri) for r in (await other.list_resources()).resources]
            assert not any(expert["id"] in u for u in resources)


async def test_an_expert_name_another_principal_uses_is_neither_refused_nor_revealed(data_dir: Path) -> None:
    """Names are unique per owner: 'already exists' for another's name told one principal another's names."""
    async with principal_server(data_dir) as (_, base):
        async with as_principal(base, "researcher") as owner, as_principal(base, "other") as other:
            mine = (await call(owner, "expert_create", {"name": "Secret project Falcon"}))["expert"]
            ok, text = await attempt(other, "expert_create", {"name": "Secret project Falcon"})
            assert ok, text  # not "already exists": nothing said about the other principal's experts
            theirs = (await call(other, "expert_list", {}))["experts"]
            assert [e["name"] for e in theirs] == ["Secret project Falcon"] and theirs[0]["expert_id"] != mine["id"]
            ok, text = await attempt(owner, "expert_create", {"name": "Secret project Falcon"})
            assert not ok and "you already have an expert named 'Secret project Falcon'" in text


async def test_templates_and_lists_need_read(data_dir: Path) -> None:
    scopes = {"writer": ["research"]}
    from deepr_mcp.app.root import Root  # noqa: F401  (the server under test is the real one)
    from deepr_mcp.config import Settings
    from tests.principals import principals_config
    from tests.servers import inprocess_http, inprocess_services

    settings = Settings(data_dir=data_dir, auth=principals_config(scopes))
    async with inprocess_services(settings) as services, inprocess_http(services) as base:
        async with as_principal(base, "writer") as writer:
            with pytest.raises(MCPError, match="needs scope 'read'"):
                await writer.list_resource_templates()
            with pytest.raises(MCPError, match="needs scope 'read'"):
                await writer.list_resources()
            ok, text = await attempt(writer, "campaign_list", {})
            assert not ok and "tool campaign_list needs scope 'read'" in text
            hits = structured(await writer.call_tool("tool_search", {"query": "share a campaign"}))["hits"]
            assert hits[0]["name"] == "campaign_share"


async def test_a_budget_decision_records_the_principal_that_made_it(data_dir: Path) -> None:
    from tests.campaigns import TINY_BUDGET, priced
    from tests.clients import Human, accept
    from tests.fake_llm import fake_llm

    async with fake_llm() as llm, principal_server(data_dir, **priced(llm.url)) as (_, base):
        async with as_principal(base, "researcher") as owner, as_principal(base, "approver") as approver:
            cid = (await call(owner, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
            await call(owner, "campaign_share", {"campaign_id": cid, "principals": ["approver"]})
            await call(owner, "campaign_wait", {"campaign_id": cid, "until": "decision", "timeout_s": 30})
            ok, text = await attempt(owner, "budget_decide", {"campaign_id": cid, "decision": "abort"})
            assert not ok and "needs scope 'approve'" in text
            await call(approver, "budget_decide", {"campaign_id": cid, "decision": "approve_override", "new_budget": 1})
            decision = (await call(owner, "budget_get", {"campaign_id": cid}))["decisions"][0]
            assert (decision["principal"], decision["channel"]) == ("approver", "budget_decide")
        # 2026-07-28: only a principal that may approve is put the question; its answer is recorded as its own.
        human = Human(accept(decision="abort"))
        async with (
            as_principal(base, "researcher", "modern", elicitation_callback=human) as owner,
            as_principal(base, "approver", "modern", elicitation_callback=human) as approver,
        ):
            cid = (await call(owner, "campaign_start", {"question": QUESTION, "budget": TINY_BUDGET}))["campaign_id"]
            await call(owner, "campaign_share", {"campaign_id": cid, "principals": ["approver"]})
            pending = await call(owner, "campaign_wait", {"campaign_id": cid, "until": "decision", "timeout_s": 30})
            assert pending["decision_pending"] and not human.asked, (
                pending,
                human.asked,
            )  # the researcher cannot approve
            await call(approver, "campaign_status", {"campaign_id": cid})
            assert len(human.asked) == 1
            decision = (await call(owner, "budget_get", {"campaign_id": cid}))["decisions"][0]
            assert (decision["principal"], decision["channel"]) == ("approver", "input_required")


async def test_a_share_can_be_taken_back(data_dir: Path) -> None:
    async with principal_server(data_dir) as (_, base):
        async with as_principal(base, "researcher") as owner, as_principal(base, "other") as other:
            cid = await start(owner)
            await call(owner, "campaign_share", {"campaign_id": cid, "principals": ["other", "reader"]})
            assert (await call(other, "campaign_status", {"campaign_id": cid}))["id"] == cid
            ok, text = await attempt(other, "campaign_unshare", {"campaign_id": cid, "principals": ["other"]})
            assert not ok and "only its owner" in text  # a guest cannot edit the share list, even to leave
            taken = await call(owner, "campaign_unshare", {"campaign_id": cid, "principals": ["other", "nobody"]})
            assert taken["shared_with"] == ["reader"] and taken["not_shared_with"] == ["nobody"]
            ok, text = await attempt(other, "campaign_status", {"campaign_id": cid})
            assert not ok and "is not shared with 'other'" in text
            assert (await call(other, "campaign_list", {}))["total"] == 0
            for bad in [[], "everyone", ["has space"]]:
                ok, text = await attempt(owner, "campaign_unshare", {"campaign_id": cid, "principals": bad})
                assert not ok and "principals" in text, (bad, text)
            await call(owner, "campaign_share", {"campaign_id": cid, "principals": "all"})
            assert (await call(owner, "campaign_unshare", {"campaign_id": cid, "principals": "all"}))[
                "shared_with"
            ] == []
            assert (await call(owner, "campaign_status", {"campaign_id": cid}))["id"] == cid  # the owner keeps it


async def test_one_principal_s_unfinished_campaigns_are_capped_and_others_unaffected(data_dir: Path) -> None:
    async with principal_server(data_dir, jobs={"max_open_per_principal": 2, "step_delay_s": 0.5}) as (_, base):
        async with as_principal(base, "researcher") as greedy, as_principal(base, "other") as other:
            first = [await start(greedy, f"{QUESTION} ({i})") for i in range(2)]
            ok, text = await attempt(greedy, "campaign_start", {"question": QUESTION})
            assert not ok and "principal 'researcher' has 2 unfinished campaigns" in text, text
            assert "jobs.max_open_per_principal" in text
            assert await start(other)  # another principal starts as usual
            await call(greedy, "campaign_cancel", {"campaign_id": first[0]})
            with anyio.fail_after(30):
                await call(greedy, "campaign_wait", {"campaign_id": first[0], "until": "complete", "timeout_s": 20})
            assert await start(greedy)  # a finished one frees its place


async def test_concurrent_starts_of_one_principal_never_pass_its_cap_together(data_dir: Path) -> None:
    """Issue 31 item 14: the cap was read, then the campaign made, so starts sent at once (here on three
    sessions of one principal) all read the same count and all got in; now exactly the cap is admitted."""
    limits = {"max_open_per_principal": 2, "step_delay_s": 2.0}  # none finishes while the others start
    async with principal_server(data_dir, jobs=limits) as (_, base):
        async with (
            as_principal(base, "researcher") as first,
            as_principal(base, "researcher") as second,
            as_principal(base, "researcher") as third,
        ):
            sessions = [first, second, third]
            answers: list[tuple[bool, str]] = []

            async def start_on(n: int) -> None:
                answers.append(await attempt(sessions[n % 3], "campaign_start", {"question": f"{QUESTION} ({n})"}))

            with anyio.fail_after(60):
                async with anyio.create_task_group() as starts:
                    for n in range(9):
                        starts.start_soon(start_on, n)
            refusals = [text for ok, text in answers if not ok]
            assert sum(ok for ok, _ in answers) == 2 and len(refusals) == 7, answers
            for text in refusals:
                assert "principal 'researcher' has 2 unfinished campaigns" in text, text
                assert "jobs.max_open_per_principal" in text and "nothing was started" in text
            assert (await call(first, "campaign_list", {}))["total"] == 2  # no refused start left a record
            async with as_principal(base, "other") as other:
                assert await start(other)  # another principal starts as usual
