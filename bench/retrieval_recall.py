"""Where gold evidence is lost: candidate pool, top-k, or synthesis (one line per question).

Run: ``.venv/bin/python -m bench.retrieval_recall [--corpus NAME] [--only ID]
[--retrieval lexical|semantic|hybrid] [--ranks]`` on a corpus ``bench.research_quality`` caches
(python3-doc by default; it ingests it when missing), with its tuned questions.

For each gold phrase of each question: is a passage holding it in any sub-question's candidate
pool, in the passages retrieved for the report (top-k per sub-question), and in the report
itself? The shares per stage say which stage to work on: a phrase in the pool but not the top-k
is a ranking loss; in the top-k but not the report, a synthesis loss. ``--ranks`` also prints,
per sub-question, the rank of each gold passage in the re-scored pool (``-`` when absent).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench import quality_metrics as qm
from bench.quality_corpora import CORPORA
from bench.research_quality import PACKAGE, find_corpus, load_questions, open_corpus, ready_corpus


def gold_passages(corpus: Any, questions: list[Any]) -> dict[str, set[str]]:
    """Passage ids holding each gold phrase (normalised match over heading path and text)."""
    phrases = {qm.normalise(p): p for q in questions for p in q.gold}
    found: dict[str, set[str]] = defaultdict(set)
    for passage in corpus.iter_passages():
        text = qm.normalise(f"{passage.location}\n{passage.text}")
        for norm, phrase in phrases.items():
            if norm in text:
                found[phrase].add(passage.id)
    return found


def trace(corpus: Any, question: str, retrieval: str) -> dict[str, Any]:
    """Run the engine with a recording retriever: pools, rankings and the retrieved passages."""
    import anyio

    from deepr_mcp.embedding import shared_embedder
    from deepr_mcp.research.engine import Engine, new_state
    from deepr_mcp.research.providers.local import LocalProvider
    from deepr_mcp.research.retrieval.hybrid import HybridSearch, check_mode

    search = HybridSearch(corpus, shared_embedder("minilm"))
    provider = LocalProvider(search.embedder if retrieval != "lexical" else None)
    engine = Engine(corpus, provider, search=search, retrieval=check_mode(retrieval))
    retriever = engine.retriever
    record: list[dict[str, Any]] = []
    original_retrieve = retriever.retrieve
    original_score = retriever._score
    pools: list[Any] = []

    def score(pool: Any, *args: Any, **kwargs: Any) -> None:
        pools.append(pool)
        original_score(pool, *args, **kwargs)

    def retrieve(sub_question: str, analysis: Any, k: int, also: Any = ()) -> Any:
        pools.clear()
        evidence = original_retrieve(sub_question, analysis, k, also)
        pool = pools[-1] if pools else {}
        ranked = [c.passage.id for c in sorted(pool.values(), key=lambda c: -c.score)]
        record.append({"sub": sub_question, "ranked": ranked, "top": [p.id for p in evidence.passages]})
        return evidence

    retriever.retrieve = retrieve  # type: ignore[method-assign]
    retriever._score = score  # type: ignore[method-assign]
    t0 = time.perf_counter()
    state = anyio.run(engine.run, new_state(question))
    return {"subs": record, "report": state.report or "", "seconds": time.perf_counter() - t0}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.retrieval_recall", description=__doc__.split("\n\n")[0])
    p.add_argument("--only", action="append", default=[], metavar="ID")
    tuned = sorted(name for name, spec in CORPORA.items() if spec.has_set("tuned"))  # never a corpus kept untuned
    p.add_argument("--corpus", default=PACKAGE, choices=tuned, help="which bench corpus (tuned questions)")
    p.add_argument("--questions", type=Path, help="another question set (default: the corpus's tuned set)")
    p.add_argument("--retrieval", choices=("lexical", "semantic", "hybrid"), default="hybrid")
    p.add_argument("--ranks", action="store_true", help="print gold ranks per sub-question")
    args = p.parse_args(argv)
    spec = CORPORA[args.corpus]
    questions = load_questions(args.questions or spec.question_set("tuned"))
    if args.only:
        questions = [q for q in questions if q.id in args.only]
    os.environ["DEEPR_RESEARCH_RETRIEVAL"] = args.retrieval
    corpus = open_corpus(ready_corpus(find_corpus(spec), reindex=False, spec=spec))
    gold = gold_passages(corpus, questions)
    totals: dict[str, list[float]] = defaultdict(list)
    by_type: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    print(f"{'question':28} {'type':10} {'pool':>5} {'first':>5} {'top-k':>5} {'report':>6}  lost")
    for q in questions:
        run = trace(corpus, q.question, args.retrieval)
        pool_ids = {pid for s in run["subs"] for pid in s["ranked"]}
        first_pool = set(run["subs"][0]["ranked"]) if run["subs"] else set()
        top_ids = {pid for s in run["subs"] for pid in s["top"]}
        in_report = qm.gold_found(run["report"], q.gold)
        stages = {"pool": [], "first": [], "top": [], "report": []}
        lost = []
        for phrase, reported in zip(q.gold, in_report, strict=True):
            ids = gold[phrase]
            stages["pool"].append(bool(ids & pool_ids))
            stages["first"].append(bool(ids & first_pool))
            stages["top"].append(bool(ids & top_ids))
            stages["report"].append(reported)
            if not reported:
                where = "synth" if ids & top_ids else "rank" if ids & pool_ids else "pool" if ids else "corpus"
                lost.append(f"{where}:{phrase[:40]!r}")
        shares = {k: sum(v) / len(v) for k, v in stages.items()}
        for k, v in shares.items():
            totals[k].append(v)
            by_type[q.type][k].append(v)
        print(
            f"{q.id:28} {q.type:10} {shares['pool']:5.2f} {shares['first']:5.2f} {shares['top']:5.2f} "
            f"{shares['report']:6.2f}  {' '.join(lost)}"
        )
        if args.ranks:
            for s in run["subs"]:
                ranks = []
                for phrase in q.gold:
                    hits = [i + 1 for i, pid in enumerate(s["ranked"]) if pid in gold[phrase]]
                    ranks.append(str(min(hits)) if hits else "-")
                print(f"    {' '.join(ranks):14} of {len(s['ranked']):3}  {s['sub']}")
    print()
    print(f"{'all':28} {'':10} " + " ".join(f"{statistics.mean(totals[k]):5.2f}" for k in ("pool", "first", "top")))
    print(f"  report recall {statistics.mean(totals['report']):.2f}")
    for kind, stages in sorted(by_type.items()):
        row = " ".join(f"{statistics.mean(stages[k]):5.2f}" for k in ("pool", "first", "top", "report"))
        print(f"{kind:28} {len(stages['pool']):<10} {row}")
    corpus.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
