"""Search by meaning through the server: corpus_add answers at once, vectors follow in the background
(resuming after a restart), and corpus_search ranks by words, meaning or both as asked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from deepr_mcp.embedding import shared_embedder
from deepr_mcp.research.corpus.storage import Corpus
from tests.campaigns import follow
from tests.clients import call, connect, embedded, text_of

QUESTION = "how do I avoid typing my password again and again"
DOCS = {
    "credentials.md": "# Credential storage\n\n## Helpers\n\nA credential helper remembers your login secret, so you "
    "are not prompted on each upload.\n",
    "keys.md": "# Keyboard\n\n## Repeating\n\nTyping a command again repeats it; the up arrow recalls the last one.\n",
    "branches.md": "# Branches\n\n## Pointers\n\nA branch is a movable pointer to a commit in the history.\n",
    "merge.md": "# Merging\n\n## Histories\n\nMerging combines the histories of two branches into one.\n",
}


def folder_of(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text)
    return folder


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_added_documents_become_searchable_by_meaning_and_modes_compare(
    era: str, empty_data_dir: Path, tmp_path: Path
) -> None:
    folder = folder_of(tmp_path)
    async with connect("inproc", era, empty_data_dir) as client:
        added = await call(client, "corpus_add", {"path": str(folder)})
        assert added["added"] == 4 and added["embedding"]["passages"] == 4  # answered before vectors exist
        lexical = await call(client, "corpus_search", {"query": QUESTION, "mode": "lexical"})
        assert lexical["mode"] == "lexical"
        assert all(h["source"] != "credentials.md" for h in lexical["hits"])  # no shared word
        status = await embedded(client)
        assert status["embedded"] == 4 and status["pending"] == 0 and status["model"].startswith("all-MiniLM")
        semantic = await call(client, "corpus_search", {"query": QUESTION, "mode": "semantic", "limit": 2})
        assert "credentials.md" in [h["source"] for h in semantic["hits"]]
        hybrid = await call(client, "corpus_search", {"query": QUESTION, "limit": 2})
        assert hybrid["mode"] == "hybrid" and "credentials.md" in [h["source"] for h in hybrid["hits"]]
        bad = await client.call_tool(
            "tool_call", {"name": "corpus_search", "arguments": {"query": "x", "mode": "dense"}}
        )
        assert bad.is_error and "lexical" in text_of(bad) and "Traceback" not in text_of(bad)

        removed = await call(client, "corpus_remove", {"path": str(folder / "credentials.md")})
        assert removed["passages_removed"] == 1
        status = (await call(client, "corpus_list", {}))["embedding"]
        assert status["embedded"] == 3 and status["passages"] == 3  # its vector went with it
        again = await call(client, "corpus_search", {"query": QUESTION, "mode": "semantic"})
        assert "credentials.md" not in [h["source"] for h in again["hits"]]


async def test_embedding_left_by_a_restart_resumes_and_keeps_what_was_done(
    empty_data_dir: Path, tmp_path: Path
) -> None:
    corpus = Corpus(empty_data_dir / "corpus.db")  # a server stopped after the add and two stored vectors
    corpus.add_path(folder_of(tmp_path))
    model = shared_embedder("minilm")
    first = corpus.pending_embeddings(model.name, 2)
    marker = np.zeros((2, 384), dtype=np.float32)
    marker[:, 0] = 1.0  # not what the model would give: shows these are kept, not embedded again
    assert corpus.store_embeddings(model.name, first, marker) == 2
    corpus.close()
    async with connect("inproc", "legacy", empty_data_dir) as client:
        status = await embedded(client)
        assert status["embedded"] == 4
    corpus = Corpus(empty_data_dir / "corpus.db")
    try:
        kept = corpus.vectors_of(model.name, [p.passage_id for p in first])
        assert all(v[0] == 1.0 for v in kept.values()) and len(kept) == 2
        rest = corpus.vectors_of(model.name, [p.id for p in corpus.iter_passages()])
        assert sum(1 for v in rest.values() if v[0] != 1.0) == 2  # the other two were embedded by the server
    finally:
        corpus.close()


async def test_campaign_start_takes_the_agents_phrasings_and_bounds_them(empty_data_dir: Path, tmp_path: Path) -> None:
    async with connect("inproc", "legacy", empty_data_dir) as client:
        await call(client, "corpus_add", {"path": str(folder_of(tmp_path))})
        found = await client.call_tool("tool_search", {"query": "start a research campaign", "limit": 1})
        schema = (found.structured_content or {})["hits"][0]["inputSchema"]
        assert schema["properties"]["queries"]["maxItems"] == 8
        too_many = {"question": QUESTION, "queries": [f"phrase {i}" for i in range(9)]}
        bad = await client.call_tool("tool_call", {"name": "campaign_start", "arguments": too_many})
        assert bad.is_error and "queries" in text_of(bad)
        started = await call(client, "campaign_start", {"question": QUESTION, "queries": ["credential helper"]})
        await follow(client, started["campaign_id"])
        report = text_of(await client.call_tool("campaign_report", {"campaign_id": started["campaign_id"]}))
        assert report.startswith("# Research report")
