"""The embedder ``tool_search`` uses: the packaged MiniLM run in int8 arithmetic, or the one configured.

A search embeds its query on the request path, so the model's cost is the search's: the packaged
model run as shipped takes 4-5 CPU-ms per short query, the same weights multiplied in int8
(``int8_graph``) about 1.5 with the same LiveMCPBench Recall@3. Its vectors differ slightly from the
float run's, so it embeds the tools as well as the queries (its own name keys its own vector cache),
and passages keep the exact model: corpus vectors are untouched. Any other embedder (a user's
plugged model, ``none``) is used as it is.
"""

from __future__ import annotations

import threading

from deepr_mcp.embedding.base import Embedder
from deepr_mcp.embedding.minilm import MAX_TOKENS, TOKENIZER, MiniLM, _checked, _model_file
from deepr_mcp.gateway.int8_graph import int8_matmul_model

__all__ = ["Int8MiniLM", "tool_embedder"]

_lock = threading.Lock()
_made: list[Int8MiniLM] = []


class Int8MiniLM(MiniLM):
    """The packaged MiniLM with its matrix products in int8 arithmetic: same tokenizer, pooling and threads.

    One text per model run: activations are quantized with one scale per run, so a text run in a batch
    gets a vector that depends on its batch-mates (cosine down to 0.98 with its own, measured on
    LiveMCPBench's tools), and a tool's vector would change with the order tools were registered in.
    Tool texts are short: one by one costs 0.96 CPU-s per 200 tools against 0.74 in batches.
    """

    name = f"{MiniLM.name}+int8-matmul"

    def __init__(self, *, threads: int | None = None) -> None:
        super().__init__(batch_size=1, threads=threads)

    def _load_locked(self) -> None:
        if self._session is not None:
            return
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # as MiniLM: parallel across calls, not inside one
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        model = int8_matmul_model(_checked(_model_file()))
        tokenizer = Tokenizer.from_file(str(TOKENIZER))
        tokenizer.enable_truncation(MAX_TOKENS)
        tokenizer.no_padding()
        session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        self._tokenizer = tokenizer
        self._session = session


def tool_embedder(embedder: Embedder) -> Embedder:
    """What tools and queries are embedded with: ``Int8MiniLM`` for the packaged MiniLM, else ``embedder``.

    One per process (a server, the CLI and benches share it); it loads on first use, like
    MiniLM. The packaged model is pinned by sha256, so the rewrite either always works or never
    does (``tests/gateway/test_tool_model.py``); if it did not, embedding fails and tools rank by words.
    """
    if type(embedder) is not MiniLM:
        return embedder
    with _lock:
        if not _made:
            _made.append(Int8MiniLM(threads=embedder.threads))
        return _made[0]
