"""The optional re-ranker: blend arithmetic, the factory's errors, the setting, and the real
packaged all-MiniLM-L6-v2 (no mock of the model).

The model tests skip only where the ``embed`` extra is genuinely absent *and* CI is not set:
``scripts/test.sh`` installs the extra, so in CI they always run (and fail if it is missing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from typing import get_args

import pytest

from deepr_mcp.cli import main
from deepr_mcp.config import ResearchSettings, load_settings
from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.reading.terms import terms
from deepr_mcp.research.retrieval import rerank as rr
from deepr_mcp.research.retrieval.rerank import (
    RERANKERS,
    MiniLMReranker,
    NoReranker,
    blend,
    make_reranker,
    min_max,
    rerank,
)

HAVE_EXTRA = not rr.missing_extra()
needs_model = pytest.mark.skipif(
    not HAVE_EXTRA and not os.environ.get("CI"),
    reason="embed extra not installed (pip install 'deepr-mcp[embed]'); in CI these tests always run",
)

QUERY = "How do I stop tar extraction writing files outside the target directory?"
# tarfile's own warning, as the Python documentation words it: few of the query's words.
WARNING = (
    "Warning: Never extract archives from untrusted sources without prior inspection. It is possible "
    'that files are created outside of path, e.g. members that have absolute filenames starting with "/" '
    'or filenames with two dots "..".'
)
# Each shares more of the query's content words than the warning does, and answers nothing about tar.
DISTRACTORS = [
    "RotatingFileHandler: when the current log file reaches its size limit, writing stops, the files are "
    "renamed and writing resumes in the target directory.",
    "shutil.copytree copies files into the target directory. If the target directory already exists, "
    "writing stops with FileExistsError unless dirs_exist_ok is true.",
    "A thread stops when its target function returns. Do not stop a thread that is writing files from "
    "outside; signal it with an Event instead.",
    "os.walk generates the file names in a directory tree. The target directory is walked top-down or "
    "bottom-up; stop the walk early by clearing dirnames.",
    "os.chdir changes the current working directory to the target path. Writing files with relative names "
    "then puts them in that directory, not outside it.",
]


# -- pure arithmetic: no model ---------------------------------------------------------------------


def test_min_max_scales_and_treats_a_constant_list_as_no_information() -> None:
    assert min_max([2.0, 4.0, 3.0]) == [0.0, 1.0, 0.5]
    assert min_max([7.0, 7.0]) == [0.0, 0.0]
    assert min_max([]) == []


def test_blend_weight_zero_is_bm25_and_one_is_the_embedding() -> None:
    lexical, dense = [9.0, 3.0, 1.0], [0.1, 0.9, 0.5]
    assert blend(lexical, dense, 0.0) == min_max(lexical)
    assert blend(lexical, dense, 1.0) == min_max(dense)
    assert blend(lexical, dense, 0.5) == pytest.approx([0.5, 0.625, 0.25])


def test_blend_and_rerank_reject_mismatched_or_out_of_range_inputs() -> None:
    with pytest.raises(InvalidInput, match="one dense score per candidate"):
        blend([1.0, 2.0], [1.0])
    with pytest.raises(InvalidInput, match="between 0 and 1"):
        blend([1.0], [1.0], 1.5)
    with pytest.raises(InvalidInput, match="one BM25 score per text"):
        rerank(NoReranker(), "q", ["a", "b"], [1.0])


class _Fixed:
    """A stand-in re-ranker for the order arithmetic only (the model itself is tested below)."""

    name = "fixed"

    def __init__(self, values: list[float]) -> None:
        self.values = values
        self.calls = 0

    def scores(self, query: str, texts: list[str]) -> list[float]:
        self.calls += 1
        return self.values[: len(texts)]


def test_rerank_none_keeps_bm25_order_and_weight_zero_never_asks_the_model() -> None:
    texts, lexical = ["a", "b", "c", "d"], [5.0, 4.0, 4.0, 1.0]
    assert rerank(NoReranker(), "q", texts, lexical) == [0, 1, 2, 3]
    fixed = _Fixed([0.0, 0.1, 0.2, 1.0])
    assert rerank(fixed, "q", texts, lexical, weight=0.0) == [0, 1, 2, 3]
    assert fixed.calls == 0
    assert rerank(fixed, "q", texts, lexical, weight=1.0) == [3, 2, 1, 0]
    assert rerank(fixed, "q", [], [], weight=1.0) == []


def test_rerank_rejects_a_reranker_that_returns_the_wrong_number_of_scores() -> None:
    with pytest.raises(InvalidInput, match="returned 1 scores for 2 texts"):
        rerank(_Fixed([1.0]), "q", ["a", "b"], [1.0, 2.0])


# -- factory and setting ---------------------------------------------------------------------------


def test_factory_names_what_is_allowed() -> None:
    none = make_reranker("none")
    assert none.name == "none" and none.scores("q", ["a", "b", "c"]) == [0.0, 0.0, 0.0]  # keeps BM25 order
    with pytest.raises(InvalidInput, match=r"unknown re-ranker 'bert'; allowed: none, minilm"):
        make_reranker("bert")


def test_factory_says_how_to_install_the_extra_when_it_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    # A None entry in sys.modules is how Python marks a module as not importable.
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(InvalidInput) as err:
        make_reranker("minilm")
    assert "the minilm re-ranker needs `pip install 'deepr-mcp[embed]'`" in err.value.message
    assert "sentence_transformers" in err.value.message


def test_setting_defaults_to_none_maps_to_env_and_is_shown(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DEEPR_CONFIG", "")
    monkeypatch.delenv("DEEPR_RESEARCH_RERANKER", raising=False)
    assert load_settings().research.reranker == "none"
    assert get_args(ResearchSettings.model_fields["reranker"].annotation) == RERANKERS
    monkeypatch.setenv("DEEPR_RESEARCH_RERANKER", "minilm")
    assert load_settings().research.reranker == "minilm"
    assert main(["config", "show"]) == 0
    assert json.loads(capsys.readouterr().out)["research"] == {"reranker": "minilm", "sources": []}
    monkeypatch.setenv("DEEPR_RESEARCH_RERANKER", "bert")
    with pytest.raises(InvalidInput, match=r"research\.reranker"):
        load_settings()


# -- the real packaged model -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm() -> MiniLMReranker:
    reranker = make_reranker("minilm")
    assert isinstance(reranker, MiniLMReranker)
    return reranker


def test_the_premise_distractors_share_more_query_words_than_the_warning() -> None:
    wanted = terms(QUERY)
    shared = len(wanted & terms(WARNING))
    assert all(len(wanted & terms(d)) > shared for d in DISTRACTORS)


@needs_model
def test_minilm_ranks_the_differently_phrased_answer_above_word_overlap_distractors(minilm: MiniLMReranker) -> None:
    scores = minilm.scores(QUERY, [*DISTRACTORS, WARNING])
    assert len(scores) == len(DISTRACTORS) + 1
    assert all(-1.0 <= s <= 1.0 for s in scores)
    warning_score = scores[-1]
    assert all(warning_score > s for s in scores[:-1]), scores


@needs_model
def test_rerank_with_minilm_lifts_the_warning_and_weight_zero_keeps_the_bm25_top(minilm: MiniLMReranker) -> None:
    texts = [*DISTRACTORS, WARNING]
    # A pure word-overlap ranking, as a lexical scorer without stemming tricks would give it.
    lexical = [float(len(terms(QUERY) & terms(t))) for t in texts]
    assert texts[max(range(len(texts)), key=lambda i: lexical[i])] != WARNING
    assert rerank(minilm, QUERY, texts, lexical, weight=0.0)[0] == lexical.index(max(lexical))
    assert rerank(minilm, QUERY, texts, lexical, weight=1.0)[0] == len(texts) - 1
    blended = rerank(minilm, QUERY, texts, lexical)  # the default weight
    by_overlap = sorted(range(len(texts)), key=lambda i: (-lexical[i], i))
    assert blended.index(len(texts) - 1) < by_overlap.index(len(texts) - 1)


@needs_model
def test_embeddings_are_cached_by_text_so_a_second_rerank_only_encodes_the_query(minilm: MiniLMReranker) -> None:
    texts = [f"passage number {i} about archives and directories" for i in range(30)]
    first = minilm.scores("which passage mentions archives?", texts)
    before = minilm.encoded
    again = minilm.scores("a different question about directories", texts)
    assert minilm.encoded - before == 1
    assert len(again) == len(first) == 30
    assert minilm.scores("which passage mentions archives?", texts) == pytest.approx(first, abs=1e-6)
    assert minilm.scores("anything", []) == []


@needs_model
def test_the_cache_is_bounded_and_evicts_least_recently_used() -> None:
    small = MiniLMReranker(cache_size=3)
    small.embed(["alpha", "beta", "gamma"])
    small.embed(["alpha", "delta"])  # "alpha" is fresh again, "beta" is the oldest and goes
    assert small.encoded == 4
    assert len(small._cache) == 3
    small.embed(["alpha", "gamma", "delta"])
    assert small.encoded == 4
    small.embed(["beta"])
    assert small.encoded == 5
    assert small.embed([]).shape == (0, 384)
    with pytest.raises(InvalidInput):
        MiniLMReranker(cache_size=0)


@needs_model
def test_concurrent_callers_get_the_same_scores_as_one_caller(minilm: MiniLMReranker) -> None:
    texts = [*DISTRACTORS, WARNING]
    expected = minilm.scores(QUERY, texts)
    results: list[list[float]] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            fresh = MiniLMReranker()  # its own cache, the shared model: every call encodes
            results.append(fresh.scores(QUERY, texts))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 4
    for got in results:
        assert got == pytest.approx(expected, abs=1e-5)


@needs_model
def test_the_int8_option_stays_close_to_the_float_default(minilm: MiniLMReranker) -> None:
    assert not minilm.quantized
    fast = MiniLMReranker(quantized=True)
    texts = [QUERY, *DISTRACTORS, WARNING]
    agreement = (minilm.embed(texts) * fast.embed(texts)).sum(axis=1)  # rows are unit vectors
    assert agreement.min() > 0.9, agreement
    int8 = fast.scores(QUERY, texts[1:])
    assert int8 == pytest.approx(minilm.scores(QUERY, texts[1:]), abs=0.06)
    assert max(range(len(int8)), key=int8.__getitem__) == len(int8) - 1  # the warning still wins


NO_NETWORK = r"""
import json, os, socket, sys
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args[1:] if args else kwargs))
    raise OSError("network forbidden by the test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
from deepr_mcp.research.retrieval.rerank import make_reranker
r = make_reranker("minilm")
scores = r.scores("archive safety", ["never extract untrusted archives", "bake bread at 220 degrees"])
print(json.dumps({
    "attempts": attempts,
    "scores": scores,
    "offline": [os.environ.get("HF_HUB_OFFLINE"), os.environ.get("TRANSFORMERS_OFFLINE")],
}))
"""


@needs_model
def test_model_loads_and_scores_with_the_network_forbidden() -> None:
    # A fresh process (the model loads once per process), offline switches deliberately unset:
    # the module must set them itself, and any socket use would be recorded and refused.
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    done = subprocess.run(
        [sys.executable, "-c", NO_NETWORK], capture_output=True, text=True, env=env, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["attempts"] == []
    assert report["offline"] == ["1", "1"]
    assert report["scores"][0] > report["scores"][1]
