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

QUESTION = (
    "How efficient are heat pumps in cold climates compared with gas boilers, "
    "and what is the noise level of heat pumps?"
)
HEAT_PUMPS = """# Heat pumps in cold climates

## Efficiency

A heat pump moves heat from outdoor air into a building instead of burning fuel. Its efficiency is
given as the coefficient of performance (COP): the heat delivered divided by the electricity used.

At an outdoor temperature of 7 °C a typical air-source heat pump reaches a COP of about 3.5. The COP
falls as the outdoor air gets colder: at -15 °C modern cold-climate models still reach a COP of about 2.

## Defrosting

Below freezing, frost builds up on the outdoor coil. The heat pump reverses for a few minutes to melt
it, which lowers the seasonal efficiency by a few percent.
"""


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
