"""Top-k gold recall of ``corpus search`` per corpus: by words, by meaning, and fused at several weights.

Run: ``.venv/bin/python -m bench.search_recall [--corpus NAME|all] [--sets used|run-once|NAME,...]
[--weights 1,2]`` on the bench corpora (``bench.research_quality`` caches them). Each question is searched
as written, the way a user types it into ``corpus search``. The figure is the share of its gold phrases
held by a passage in the top 5 and top 10.

Hybrid search fuses the word ranking (FTS5 BM25) and the meaning ranking (the embedder's nearest
passages) by reciprocal rank, a rank by meaning weighing ``--weights`` against 1 for words. The product
uses ``retrieval.hybrid.MEANING_WEIGHT``. ``--sets used`` (the default) takes the sets already used
for decisions; ``run-once`` takes the sets written to be run once by ``research_quality`` that have had
that run (``question_sets.RAN_ONCE``), none of them ever used to tune search. They were run here once,
after the weight was chosen on the used sets. A set not run yet (``question_sets.UNTOUCHED``) is refused,
by group or by name: reading it here would look at it before its one run.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from typing import Any

from bench.evidence_stages import DIAGNOSED
from bench.quality_corpora import CORPORA, chosen_names, having
from bench.question_sets import QUESTION_SETS, RAN_ONCE, UNTOUCHED
from bench.research_quality import find_corpus, load_questions, open_corpus, ready_corpus
from bench.retrieval_recall import gold_passages

DEPTHS = (5, 10)


def weighted(words: list[Any], meaning: list[Any], weight: float, limit: int) -> list[str]:
    """Passage ids fused by reciprocal rank, a rank by meaning counting ``weight``."""
    from deepr_mcp.research.retrieval.hybrid import fuse

    return [p.id for p in fuse([words, meaning], limit, weights=[1.0, weight])]


def recall(gold: dict[str, set[str]], phrases: list[str], ids: list[str]) -> float:
    found = set(ids)
    return sum(bool(gold.get(p, set()) & found) for p in phrases) / len(phrases)


def run_corpus(name: str, sets: list[str], weights: list[float]) -> dict[str, dict[int, list[float]]]:
    """Per column (``words``, ``meaning``, ``weight W``) and depth, each question's recall."""
    from deepr_mcp.embedding import shared_embedder
    from deepr_mcp.research.retrieval.hybrid import DEPTH, HybridSearch

    spec = CORPORA[name]
    corpus = open_corpus(ready_corpus(find_corpus(spec), reindex=False, spec=spec))
    search = HybridSearch(corpus, shared_embedder("minilm"))
    out: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    try:
        for chosen in [s for s in sets if spec.has_set(s)]:
            questions = [q for q in load_questions(spec.question_set(chosen)) if q.answerable]  # none has no gold
            gold = gold_passages(corpus, questions)
            for q in questions:
                words = list(corpus.search(q.question, DEPTH))
                meaning = search.semantic([q.question], DEPTH)[0]
                columns = {"words": [p.id for p in words], "meaning": [p.id for p in meaning]}
                columns |= {f"weight {w:g}": weighted(words, meaning, w, max(DEPTHS)) for w in weights}
                for column, ids in columns.items():
                    for k in DEPTHS:
                        out[column][k].append(recall(gold, q.gold, ids[:k]))
    finally:
        corpus.close()
    return out


def chosen_sets(value: str) -> list[str]:
    """``used``, ``run-once`` (the sets run once already) or set names; a set not run yet is refused."""
    if value == "used":
        return list(DIAGNOSED)
    if value == "run-once":
        return list(RAN_ONCE)
    names = [s.strip() for s in value.split(",") if s.strip()]
    readable = [s for s in QUESTION_SETS if s not in UNTOUCHED]
    unknown = [s for s in names if s not in QUESTION_SETS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown set {unknown[0]!r}; allowed: used, run-once, {', '.join(readable)}")
    untouched = [s for s in names if s in UNTOUCHED]
    if untouched:
        raise argparse.ArgumentTypeError(
            f"set {untouched[0]!r} is kept untouched until its one run by research_quality; "
            f"allowed: used, run-once, {', '.join(readable)}"
        )
    return names


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.search_recall", description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default="all", choices=["all", *sorted(CORPORA)])
    p.add_argument("--sets", type=chosen_sets, default=list(DIAGNOSED), help="used (default), run-once or names")
    p.add_argument("--weights", default="1,2", help="weights of a rank by meaning to compare (default 1,2)")
    args = p.parse_args(argv)
    weights = [float(w) for w in args.weights.split(",")]
    os.environ.setdefault("DEEPR_RESEARCH_RETRIEVAL", "hybrid")
    columns = ["words", "meaning", *(f"weight {w:g}" for w in weights)]
    head = " | ".join(f"{c} @{k}" for c in columns for k in DEPTHS)
    print(f"| corpus | questions | {head} |")
    print("|---|---:|" + "---:|" * (len(columns) * len(DEPTHS)))
    for spec in having([CORPORA[n] for n in chosen_names(args.corpus)], args.sets):
        got = run_corpus(spec.name, args.sets, weights)
        n = len(got["words"][DEPTHS[0]])
        cells = " | ".join(f"{sum(got[c][k]) / n:.3f}" for c in columns for k in DEPTHS)
        print(f"| {spec.name} | {n} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
