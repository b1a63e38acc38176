"""The report as a client reads it: a sub-question nothing answers is named under Gaps, not filled.

The corpus holds tar reference text with no word on path traversal; the local provider used to
print ownership flags under "How can you protect against path traversal ...". Through the
protocol (both eras, in process and over stdio) the report now says that sub-question is not
answered and where the nearest passage was, and prints no section of filler for it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.research.corpus.storage import Corpus
from tests.campaigns import follow
from tests.clients import call, connect, text_of

QUESTION = "How do I safely extract a tar archive against path traversal?"
TAR_DOC = """# tarfile

## TarFile.extract

If numeric_owner is True, the uid and gid numbers from the tar archive are used to set the owner of the
extracted files. File attributes (owner, mtime, mode) are set unless set_attrs is false.

## TarFile.extractall

Extract all members from the tar archive to the current working directory or directory path.
"""
PROTECT = "How can you protect against path traversal when you extract a tar archive?"


@pytest.fixture
def tar_data_dir(tmp_path: Path) -> Path:
    docs, data = tmp_path / "docs", tmp_path / "data"
    docs.mkdir()
    data.mkdir()
    (docs / "tarfile.md").write_text(TAR_DOC)
    corpus = Corpus(data / "corpus.db")
    corpus.add_path(docs)
    corpus.close()
    return data


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("transport", ["inproc", "stdio"])
async def test_a_sub_question_the_corpus_does_not_answer_is_a_named_gap(
    transport: str, era: str, tar_data_dir: Path
) -> None:
    async with connect(transport, era, tar_data_dir) as client:
        cid = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
        assert (await follow(client, cid))[-1]["phase"] == "complete"
        report = text_of(
            await client.call_tool("tool_call", {"name": "campaign_report", "arguments": {"campaign_id": cid}})
        )
    findings = report.split("## Findings", 1)[1].split("## Gaps", 1)[0]
    gaps = report.split("## Gaps", 1)[1].split("## Sources", 1)[0]
    assert f"### {PROTECT}" not in findings  # no section of filler
    assert f"- {PROTECT} (the passages found do not answer it; the nearest was tarfile.md" in gaps
    assert "numeric_owner" not in findings.split("### How can you protect")[-1]
