"""The report as a client reads it: a part of the question the documents do not answer is a named gap.

The corpus is one page about heat-pump efficiency; the question also asks how they compare with
gas boilers and how loud they are, which the page never mentions. Through the protocol (both
eras, in process and over stdio) the report cites what answers the efficiency part, names gas
boilers and noise under Gaps in plain words, and lists nothing under the noise part.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research.corpus.storage import Corpus
from tests.campaigns import follow
from tests.clients import call, connect, text_of
from tests.heat_pumps import HEAT_PUMPS
from tests.heat_pumps import TWO_PARTS as QUESTION


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    docs, data = tmp_path / "docs", tmp_path / "data"
    docs.mkdir()
    data.mkdir()
    (docs / "heat-pumps.md").write_text(HEAT_PUMPS)
    corpus = Corpus(data / "corpus.db")
    corpus.add_path(docs)
    corpus.close()
    return data


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("transport", ["inproc", "stdio"])
async def test_the_parts_the_documents_do_not_answer_are_named_gaps(transport: str, era: str, data_dir: Path) -> None:
    async with connect(transport, era, data_dir) as client:
        cid = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
        assert (await follow(client, cid))[-1]["phase"] == "complete"
        report = text_of(
            await client.call_tool("tool_call", {"name": "campaign_report", "arguments": {"campaign_id": cid}})
        )
    answer = report.split("## Answer", 1)[1].split("## Findings", 1)[0]
    findings = report.split("## Findings", 1)[1].split("## Gaps", 1)[0]
    gaps = report.split("## Gaps", 1)[1].split("## Sources", 1)[0]
    assert "The documents say nothing about gas boilers" in gaps
    assert "The documents say nothing about noise level" in gaps
    assert "COP" in answer + findings and "[1]" in answer  # the efficiency part is answered, with citations
    assert "### What is the noise level of heat pumps?" not in findings  # nothing listed under the noise part
    assert "its evidence is already stated" not in report
