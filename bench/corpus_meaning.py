"""Search by meaning: embedding throughput, the dense index at 100,000 passages, bytes and memory.

Run: ``.venv/bin/python -m bench.corpus_meaning [--passages 100000] [--embed 256]`` (a few minutes on 2 cores).

- embedding: the packaged MiniLM over ``--embed`` real python3-doc passages (the corpus
  ``bench.research_quality`` caches; the bundled sample when it is absent): passages/s and
  CPU-seconds per 1,000 passages, and from that the CPU time to embed the whole corpus;
- the index: ``--passages`` synthetic passages (``bench.corpus``'s Zipf text) with random unit
  vectors stored as the embedder would store them; query latency of the nearest-neighbour search
  and of a hybrid search (FTS5 + nearest neighbours + fusion) with the query vector given, and
  the model's query encoding on its own (real queries);
- bytes on disk per passage vector, and the resident memory of a process serving that corpus
  (corpus open, model loaded, index loaded by a first search), in a child process.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.corpus import passages, pct, queries, vocabulary

DIMENSIONS = 384


class GivenVector:
    """Stands in for the model in the index timing: the query vector is made beforehand."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.dimensions = DIMENSIONS
        self.next: np.ndarray = np.zeros((1, DIMENSIONS), dtype=np.float32)

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        return np.repeat(self.next, len(texts), axis=0)


def unit_rows(n: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, DIMENSIONS)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def real_passages(count: int) -> tuple[list[str], int, str]:
    """Texts as embedded (heading path + text) and the whole corpus's passage count."""
    from deepr_mcp.research.corpus.vectors import passage_text

    try:
        from bench.research_quality import find_corpus, open_corpus, ready_corpus

        corpus = open_corpus(ready_corpus(find_corpus(), reindex=False))
        name = "python3-doc"
    except SystemExit:
        from deepr_mcp.research.corpus.storage import Corpus
        from deepr_mcp.research.samples import SAMPLE_CORPUS

        corpus = Corpus(Path(tempfile.mkdtemp()) / "sample.db")
        corpus.add_path(SAMPLE_CORPUS)
        name = "the bundled sample"
    every = list(corpus.iter_passages())
    corpus.close()
    step = max(1, len(every) // count)
    return [passage_text(p.location, p.text) for p in every[::step][:count]], len(every), name


def embedding(count: int) -> dict[str, float | str]:
    from deepr_mcp.embedding import make_embedder

    texts, total, name = real_passages(count)
    model = make_embedder("minilm")
    t0 = time.perf_counter()
    model.embed(["load"])
    load_s = time.perf_counter() - t0
    cpu, wall = time.process_time(), time.perf_counter()
    model.embed(texts)
    cpu_s, wall_s = time.process_time() - cpu, time.perf_counter() - wall
    asked = [
        f"how do I {verb} the {thing} number {i}"
        for i, (verb, thing) in enumerate([("read", "file"), ("sort", "list")] * 50)
    ]
    encode = []
    for q in asked:
        t0 = time.perf_counter()
        model.embed([q], query=True)
        encode.append((time.perf_counter() - t0) * 1000)
    per_1000 = cpu_s / len(texts) * 1000
    return {
        "corpus": name,
        "sampled": len(texts),
        "load_s": load_s,
        "passages_per_s": len(texts) / wall_s,
        "cpu_s_per_1000": per_1000,
        "corpus_passages": total,
        "corpus_cpu_min": per_1000 * total / 1000 / 60,
        "query_encode_p50_ms": statistics.median(encode),
        "query_encode_p95_ms": pct(encode, 0.95),
    }


def index(n: int, folder: Path) -> dict[str, float]:
    from deepr_mcp.research.corpus.storage import Corpus
    from deepr_mcp.research.retrieval.hybrid import HybridSearch

    vocab = vocabulary()
    db = folder / "corpus.db"
    corpus = Corpus(db)
    texts = passages(n, vocab)
    for start in range(0, n, 5000):
        corpus.add_texts(f"bench:{start}", texts[start : start + 5000])
    corpus.close()
    before = db.stat().st_size + _wal(db)
    corpus = Corpus(db)
    embedder = GivenVector("synthetic@1")
    cpu = time.process_time()
    while items := corpus.pending_embeddings(embedder.name, 2000):
        corpus.store_embeddings(embedder.name, items, unit_rows(len(items), items[0].rowid))
    store_cpu = time.process_time() - cpu
    corpus.close()
    corpus = Corpus(db)  # a fresh process's view: the first search loads the index
    after = db.stat().st_size + _wal(db)
    search = HybridSearch(corpus, embedder)
    probes = unit_rows(200, 99)
    t0 = time.perf_counter()
    corpus.nearest(embedder.name, probes[0], 10)
    load_ms = (time.perf_counter() - t0) * 1000
    dense, hybrid, dense_cpu = [], [], []
    words = queries(vocab, 200, common=False)
    for vector, text in zip(probes, words, strict=True):
        t0, c0 = time.perf_counter(), time.process_time()
        corpus.nearest(embedder.name, vector, 50)
        dense.append((time.perf_counter() - t0) * 1000)
        dense_cpu.append((time.process_time() - c0) * 1000)
        embedder.next = vector[None, :]
        t0 = time.perf_counter()
        search.search(text, 10, "hybrid")
        hybrid.append((time.perf_counter() - t0) * 1000)
    corpus.close()
    return {
        "passages": n,
        "bytes_per_vector": (after - before) / n,
        "store_cpu_s_per_1000": store_cpu / n * 1000,
        "index_load_ms": load_ms,
        "nearest_p50_ms": statistics.median(dense),
        "nearest_p95_ms": pct(dense, 0.95),
        "nearest_cpu_p50_ms": statistics.median(dense_cpu),
        "nearest_cpu_p95_ms": pct(dense_cpu, 0.95),
        "hybrid_p50_ms": statistics.median(hybrid),
        "hybrid_p95_ms": pct(hybrid, 0.95),
    }


def _wal(db: Path) -> int:
    wal = db.with_name(db.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


SERVED = r"""
import json, resource, sys
import numpy as np
from deepr_mcp.embedding import shared_embedder
from deepr_mcp.research.retrieval.hybrid import HybridSearch
from deepr_mcp.research.corpus.storage import Corpus

def rss():
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmRSS")).split()[1]) / 1024

corpus = Corpus(__import__("pathlib").Path(sys.argv[1]))
opened = rss()
model = shared_embedder("minilm")
model.embed(["load the model"])
loaded = rss()
vector = model.embed(["how do I read a file"], query=True)[0]
rows = np.random.default_rng(5).standard_normal((1, 384)).astype(np.float32)
corpus.nearest("synthetic@1", rows[0], 10)
print(json.dumps({"corpus_open_mb": opened, "with_model_mb": loaded, "with_index_mb": rss(),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def served(db: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", SERVED, str(db)], capture_output=True, text=True, check=True, timeout=600, env=os.environ
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.corpus_meaning", description=__doc__.split("\n\n")[0])
    p.add_argument("--passages", type=int, default=100_000)
    p.add_argument("--embed", type=int, default=256, help="real passages to embed for the throughput figure")
    args = p.parse_args(argv)
    e = embedding(args.embed)
    print(f"embedding ({e['corpus']}, {e['sampled']} passages spread over the corpus, all-MiniLM-L6-v2 int8 ONNX):")
    print("| load s | passages/s | CPU-s per 1,000 | corpus passages | CPU-min, all | query encode p50/p95 ms |")
    print("|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {e['load_s']:.2f} | {e['passages_per_s']:.1f} | {e['cpu_s_per_1000']:.0f} | {e['corpus_passages']:,} "
        f"| {e['corpus_cpu_min']:.0f} | {e['query_encode_p50_ms']:.1f} / {e['query_encode_p95_ms']:.1f} |"
    )
    with tempfile.TemporaryDirectory(prefix="deepr-meaning-") as tmp:
        i = index(args.passages, Path(tmp))
        s = served(Path(tmp) / "corpus.db")
    print(f"\nindex ({i['passages']:,} synthetic passages, random 384-dim unit vectors, 200 queries):")
    print(
        "| bytes/vector on disk | index load ms | nearest p50 / p95 ms (CPU ms) "
        "| hybrid (FTS5 + nearest + RRF) p50 / p95 ms "
        "| RSS: corpus open / + model / + index MB |"
    )
    print("|---:|---:|---:|---:|---:|")
    print(
        f"| {i['bytes_per_vector']:.0f} | {i['index_load_ms']:.0f} | {i['nearest_p50_ms']:.1f} / "
        f"{i['nearest_p95_ms']:.1f} ({i['nearest_cpu_p50_ms']:.1f} / {i['nearest_cpu_p95_ms']:.1f}) | "
        f"{i['hybrid_p50_ms']:.1f} / {i['hybrid_p95_ms']:.1f} | "
        f"{s['corpus_open_mb']:.0f} / {s['with_model_mb']:.0f} / {s['with_index_mb']:.0f} |"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"(this process's peak RSS: {peak:.0f} MB; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
