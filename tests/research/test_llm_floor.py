"""The LLM providers' whole path, against a real OpenAI- or Anthropic-shaped server on 127.0.0.1.

The relevance floor the local provider applies sentence by sentence holds for a model too: a
passage none of whose sentences answers the sub-question is never put in its prompt, and each
claim of its draft must be supported by a passage it was shown and answer the sub-question, or
it is dropped (and named in the sub-question's notes).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import aiohttp
import pytest

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.providers import prompts
from deepr_mcp.research.providers.anthropic_messages import AnthropicProvider
from deepr_mcp.research.providers.openai_compat import OpenAIProvider
from deepr_mcp.research.synthesis.claims import support
from deepr_mcp.research.synthesis.verify import Floor
from tests.fake_llm import Scripted, fake_llm

DOC = """# cratebox

## Unpacking warning

Warning: Never unpack crates that strangers send before you look inside them. It is possible that parts land
outside the loading bay, e.g. loose items that roll off the pallet and under the racks.

## Command-line interface

If you want to build a new cargo crate, specify its label after the -c option and list the parts to include.

## The Crate class

Class for reading and writing crate manifests. Do not use this class directly: use cratebox.open() instead.
"""
QUESTION = "How do I safely unpack a cargo crate?"
WARN = "What does the documentation warn about when you unpack a cargo crate?"
PLAN = f"{QUESTION}\n{WARN}"


class Sink:
    def __init__(self) -> None:
        self.files: dict[str, str] = {}

    def write_text(self, path: str, text: str) -> None:
        self.files[path] = text


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    (tmp_path / "cratebox.md").write_text(DOC)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "cratebox.md")
    return corpus


def draft(numbers: dict[str, str]) -> str:
    """A model's draft: a right claim with a wrong number, an invented one, an off-question one."""
    return "\n".join(
        [
            "- Never unpack crates that strangers send before you look inside them. [9]",
            f"- Cargo crates are always safe because the dock inspects every crate. [{numbers['warning']}]",
            f"- To build a new cargo crate, specify its label after the -c option. [{numbers['warning']}]",
        ]
    )


def openai_body(text: str) -> dict:
    return {"model": "gpt-4o", "choices": [{"message": {"content": text}}], "usage": {"prompt_tokens": 9}}


def anthropic_body(text: str) -> dict:
    return {"model": "claude", "content": [{"type": "text", "text": text}], "usage": {"input_tokens": 9}}


def provider(shape: str, session: aiohttp.ClientSession, url: str) -> OpenAIProvider | AnthropicProvider:
    options = {"max_retries": 0, "backoff_base_s": 0.01, "timeout_s": 10.0}
    if shape == "openai":
        return OpenAIProvider(session, base_url=f"{url}/v1", api_key="sk-test", model="gpt-4o", **options)  # type: ignore[arg-type]
    return AnthropicProvider(session, api_key="sk-test", model="claude", base_url=url, **options)  # type: ignore[arg-type]


def user_text(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "user")


@pytest.mark.parametrize("shape", ["openai", "anthropic"])
async def test_an_llm_sees_only_passages_that_can_answer_and_keeps_only_checked_claims(
    corpus: Corpus, shape: str
) -> None:
    body = openai_body if shape == "openai" else anthropic_body
    sink = Sink()
    async with fake_llm() as llm, aiohttp.ClientSession() as session:
        # the plan and both findings drafts are scripted; the summary is answered from the prompt
        llm.script += [Scripted(body=body(PLAN)), Scripted(body=body(draft({"warning": "1"})))]
        llm.script.append(Scripted(body=body(draft({"warning": "1"}))))
        state = await Engine(corpus, provider(shape, session, llm.url), sink=sink).run(new_state(QUESTION))
    findings_prompts = [user_text(r) for r in llm.requests[1:3]]
    warn_prompt = findings_prompts[1]
    assert "Never unpack crates" in warn_prompt
    assert "-c option" not in warn_prompt  # another task: no sentence of it can answer
    assert "Do not use this class directly" not in warn_prompt  # a "do not" that warns about nothing asked
    report = state.report or ""
    assert "always safe" not in report  # unsupported by any passage shown: dropped
    assert "-c option" not in report  # supported, but a recipe for another task: dropped
    kept = [f for sq in state.sub_questions for f in sq.findings]
    assert any("Never unpack crates" in f.claim for f in kept)
    for finding in kept:  # the wrong number [9] was re-attributed to the passage that says it
        assert finding.passage_ids
        for pid in finding.passage_ids:
            assert support(finding.claim, corpus.passage(pid).text) >= 0.8
    notes = sink.files["notes/sq2.md"]
    assert "dropped as unsupported" in notes and "always safe" in notes
    assert "not shown (no sentence answers the sub-question)" in notes


def test_the_floor_shows_a_passage_when_any_sentence_clears_it() -> None:
    class P:
        id, location = "p1", "cratebox > Unpacking"
        text = "Cargo crates hold parts. Warning: never unpack crates from unknown senders."

    floor = Floor(WARN, {"unpack", "cargo", "crate"}, QUESTION, "unpack a cargo crate")
    assert floor.shows(P())
    P.text = "Class for reading cargo crates. Do not use this class directly."
    assert not floor.shows(P())


async def test_the_summary_prompt_gets_only_checked_findings(corpus: Corpus) -> None:
    async with fake_llm() as llm, aiohttp.ClientSession() as session:
        llm.script += [Scripted(body=openai_body(PLAN)), Scripted(body=openai_body(draft({"warning": "1"})))]
        llm.script.append(Scripted(body=openai_body(draft({"warning": "1"}))))
        await Engine(corpus, provider("openai", session, llm.url)).run(new_state(QUESTION))
    summary = user_text(llm.requests[-1])
    assert prompts.TASK_SUMMARY in json.dumps(llm.requests[-1])
    assert "always safe" not in summary and "-c option" not in summary
    assert re.search(r"Never unpack crates.*\[\d+\]", summary)
