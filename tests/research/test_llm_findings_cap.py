"""A model shown many passages is asked for a few findings, and the report keeps no more than that.

The fake server's stand-in model writes a claim for every passage it is shown (30 for a question of
one part), as a model told to list "each fact" would; the engine's per-part cap
(``shares.FINDINGS_PER_PART``) is named in the prompt and applied to what is kept.
"""

from __future__ import annotations

import re
from pathlib import Path

import aiohttp
import pytest

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.providers.anthropic_messages import AnthropicProvider
from deepr_mcp.research.providers.openai_compat import OpenAIProvider
from deepr_mcp.research.shares import FINDINGS_PER_PART
from tests.fake_llm import fake_llm
from tests.research.kiln import WARES

KILN = "# Loading the kiln\n\n" + "\n\n".join(
    f"## Shelf {n}\n\nWhen loading the kiln, kiln shelf {n} holds the {ware}, set on stilts {n} cm apart."
    for n, ware in enumerate(WARES, start=1)
)
QUESTION = "How do I load the kiln shelves?"


def provider(shape: str, session: aiohttp.ClientSession, url: str) -> OpenAIProvider | AnthropicProvider:
    options = {"max_retries": 0, "backoff_base_s": 0.01, "timeout_s": 10.0}
    if shape == "openai":
        return OpenAIProvider(session, base_url=f"{url}/v1", api_key="sk-test", model="gpt-4o", **options)  # type: ignore[arg-type]
    return AnthropicProvider(session, api_key="sk-test", model="claude", base_url=url, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("shape", ["openai", "anthropic"])
async def test_a_model_listing_a_claim_per_passage_is_capped(tmp_path: Path, shape: str) -> None:
    (tmp_path / "kiln.md").write_text(KILN)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "kiln.md")
    async with fake_llm() as llm, aiohttp.ClientSession() as session:
        state = await Engine(corpus, provider(shape, session, llm.url)).run(new_state(QUESTION))
    cap = FINDINGS_PER_PART[1]  # one part: it may list the most a part may
    findings_request = next(r for r in llm.requests if "TASK: findings" in str(r))
    prompt = str(findings_request)
    shown = len(re.findall(r"\[\d+\] \(from:", prompt))
    assert shown > cap  # the model was shown more passages than the cap, and drafted a claim for each
    assert f"Write at most {cap} facts" in prompt
    listed = [line for line in (state.report or "").splitlines() if line.startswith("- ")]
    assert [len(sq.findings) for sq in state.sub_questions] == [cap]
    assert 0 < len(listed) <= cap
    assert len(state.beliefs) == cap
