"""A passage that answers the question in none of its words is cited in the report.

"How do I avoid typing my password again and again?" shares no word with "A credential helper
remembers your login secret, so you are not prompted on each upload." Among two dozen pages on
other subjects, the packaged embedder finds it far closer to the question than the corpus's usual
cosines, so the relevance floor lets it through by meaning and the report quotes and cites it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.embedding import shared_embedder
from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.reading.terms import terms
from tests.campaigns import follow
from tests.clients import call, connect, text_of

QUESTION = "How do I avoid typing my password again and again?"
ANSWER = "A credential helper remembers your login secret, so you are not prompted on each upload."
OTHERS = [
    "A branch is a movable pointer to a commit in the history.",
    "Merging combines the histories of two branches into one.",
    "The garden hose connects to the outdoor tap with a brass fitting.",
    "Sourdough bread rises slowly because wild yeast ferments the dough.",
    "The tide table lists high and low water for each day of the month.",
    "A violin has four strings tuned in perfect fifths.",
    "Granite forms when magma cools slowly deep underground.",
    "The museum opens at ten and closes at six on weekdays.",
    "Bicycle chains need oil after riding through rain.",
    "Tomato seedlings are planted out after the last frost.",
    "The library lends books for three weeks at a time.",
    "A compass needle points toward magnetic north.",
    "Chess players open with the centre pawns to control the board.",
    "The recipe calls for two eggs, flour and a pinch of salt.",
    "Paint dries faster in warm, dry air.",
    "The orchestra tunes to the oboe before the concert.",
    "Owls hunt at night and sleep during the day.",
    "The ferry crosses the lake every hour in summer.",
    "A thermometer measures the temperature of the room.",
    "Glaciers carve deep valleys as they move downhill.",
    "The bakery sells rye loaves on Saturdays.",
    "Solar panels turn sunlight into electricity.",
    "The marathon route follows the river through the city.",
    "Bees carry pollen from flower to flower.",
]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    docs, data = tmp_path / "docs", tmp_path / "data"
    docs.mkdir()
    data.mkdir()
    (docs / "credentials.md").write_text(f"# Storage\n\n## Helpers\n\n{ANSWER}\n")
    for i, text in enumerate(OTHERS):
        (docs / f"page{i:02}.md").write_text(f"# Page {i}\n\n## Notes\n\n{text}\n")
    corpus = Corpus(data / "corpus.db")
    corpus.add_path(docs)
    model = shared_embedder("minilm")
    while pending := corpus.pending_embeddings(model.name, 64):
        corpus.store_embeddings(model.name, pending, model.embed([p.text for p in pending]))
    corpus.close()
    return data


async def test_a_passage_answering_by_meaning_alone_is_cited(data_dir: Path) -> None:
    assert not terms(QUESTION) & terms(f"Storage Helpers {ANSWER}")  # not one word in common
    async with connect("inproc", "modern", data_dir) as client:
        cid = (await call(client, "campaign_start", {"question": QUESTION}))["campaign_id"]
        assert (await follow(client, cid))[-1]["phase"] == "complete"
        report = text_of(await client.call_tool("campaign_report", {"campaign_id": cid}))
    body, sources = report.split("## Sources", 1)
    assert "credential helper remembers your login secret" in body  # quoted, with its citation
    assert "credentials.md" in sources and "page0" not in sources and "page1" not in sources
    assert "## Gaps" not in body  # the part is answered, in other words than the question's
