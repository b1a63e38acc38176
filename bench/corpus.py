"""Corpus indexing and search speed: SQLite FTS5 vs rank_bm25 in memory, printed as a table.

Run: ``.venv/bin/python -m bench.corpus`` (about a minute or two on 2 cores).
Synthetic passages: ~60 words each drawn from a seeded Zipf distribution over a fixed
vocabulary, so the term statistics look like text. Queries are 2-4 words from the same
vocabulary (common words included). Target: FTS5 search p95 under 20 ms at 100k passages.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path

from rank_bm25 import BM25Okapi

from deepr_mcp.research.corpus.storage import Corpus

VOCAB_SIZE = 20_000
WORDS_PER_PASSAGE = 60
QUERIES = 200
BASELINE_QUERIES_AT_100K = 50  # rank_bm25 scores every passage in Python per query


def vocabulary() -> list[str]:
    rng = random.Random(1)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words: set[str] = set()
    while len(words) < VOCAB_SIZE:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 10))))
    return sorted(words)


def passages(n: int, vocab: list[str], seed: int = 2) -> list[str]:
    rng = random.Random(seed)
    weights = [1 / (rank + 1) for rank in range(len(vocab))]  # Zipf
    return [" ".join(rng.choices(vocab, weights=weights, k=WORDS_PER_PASSAGE)) for _ in range(n)]


COMMON = 100
"""The top-100 Zipf words occur in most passages: they play the part of stop words."""


def queries(vocab: list[str], n: int, *, common: bool) -> list[str]:
    """Content-word queries draw from ranks 100-5000 (what is left after stop-word removal);
    ``common`` queries mix in the top 100 words, the worst case for an OR query."""
    rng = random.Random(3 if common else 4)
    pool = vocab[:5000] if common else vocab[COMMON:5000]
    out = []
    for _ in range(n):
        words = [rng.choice(pool) for _ in range(rng.randint(2, 4))]
        if common:
            words[0] = rng.choice(vocab[:COMMON])
        out.append(" ".join(words))
    return out


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timed(fn, items):  # type: ignore[no-untyped-def]
    """Milliseconds per call of ``fn`` over ``items``."""
    out = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    vocab = vocabulary()
    rows = []
    for n in (10_000, 100_000):
        texts = passages(n, vocab)
        qs = queries(vocab, QUERIES, common=False)
        qs_common = queries(vocab, QUERIES, common=True)
        with tempfile.TemporaryDirectory() as tmp:
            corpus = Corpus(Path(tmp) / "bench.db")
            t0 = time.perf_counter()
            for start in range(0, n, 5000):
                corpus.add_texts(f"bench:{start}", texts[start : start + 5000])
            index_s = time.perf_counter() - t0
            fts = timed(lambda q, c=corpus: c.search(q, 10), qs)
            fts_common = timed(lambda q, c=corpus: c.search(q, 10), qs_common)
            corpus.close()
        t0 = time.perf_counter()
        bm25 = BM25Okapi([t.split() for t in texts])
        build_s = time.perf_counter() - t0
        base_qs = qs if n <= 10_000 else qs[:BASELINE_QUERIES_AT_100K]
        base = timed(lambda q, b=bm25, t=texts: b.get_top_n(q.split(), t, n=10), base_qs)
        fts_name = "SQLite FTS5 (bm25(), on disk)"
        rows.append((n, fts_name, "content words", n / index_s, statistics.median(fts), pct(fts, 0.95), len(qs)))
        rows.append(
            (
                n,
                fts_name,
                "with a top-100 word",
                n / index_s,
                statistics.median(fts_common),
                pct(fts_common, 0.95),
                len(qs_common),
            )
        )
        rows.append(
            (
                n,
                "rank_bm25 BM25Okapi (in memory)",
                "content words",
                n / build_s,
                statistics.median(base),
                pct(base, 0.95),
                len(base_qs),
            )
        )
    print("| passages | engine | queries | index passages/s | search p50 ms | search p95 ms | n queries |")
    print("|---:|---|---|---:|---:|---:|---:|")
    for n, engine, kind, rate, p50, p95, count in rows:
        print(f"| {n:,} | {engine} | {kind} | {rate:,.0f} | {p50:.2f} | {p95:.2f} | {count} |")


if __name__ == "__main__":
    main()
