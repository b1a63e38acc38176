"""Where each gold phrase is lost on its way from the corpus to the report, stage by stage.

Run: ``.venv/bin/python -m bench.evidence_stages [--corpus NAME|all] [--set NAME] [--only ID] [--warnings]
[--json PATH]``
on a question set of the bench corpora (default tuned) (``bench.research_quality`` caches them), hybrid
retrieval, the local provider. For each gold phrase, the last stage that still holds it:

- ``pool``: a passage holding it is in some sub-question's re-scored candidate pool;
- ``top``: ... among the passages retrieval hands to synthesis (top-k per sub-question);
- ``shown``: ... among those the relevance floor lets the provider read;
- ``ranked``: ... a sentence (unit) the local provider ranks holds it, before its cap and floor;
- ``drafted``: ... the provider's findings text holds it (a phrase lost here is printed with where its sentence
  stood: ``drafted(9/71 [1])``, ninth of the part's 71 ranked sentences, from passage [1]: past the part's cap of
  findings, or a passage's cap of sentences);
- ``kept``: ... a finding kept after verification and the part's checks holds it;
- ``report``: the final report holds it (what ``research_quality`` counts as recall);
- ``answer``: the report's Answer section holds it (the answer first, not only somewhere in the findings: between
  ``report`` and ``answer`` is what the Answer leaves out).

``--warnings`` traces a safety question's warning phrases instead (the caveat the docs give; a report holding none is
unsafe), the other questions left out.

A phrase found by a later stage without an earlier one (the Answer section quoting a finding of
another part) is counted where it is found. Only the dev sets may be traced (``DIAGNOSED``, the sets of
``bench/question_sets.py`` whose role is ``DEV``: the sets used for decisions and ``rover``); a set written to be run
once is refused, whether or not it has had its run: tracing it would tune on it. A ``none`` question has no gold and
is left out. A corpus without a file for the chosen set is skipped, with a line saying so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench import quality_metrics as qm
from bench.quality_corpora import CORPORA, chosen_names, having
from bench.question_sets import DEV_SETS
from bench.research_quality import find_corpus, load_questions, open_corpus, ready_corpus
from bench.retrieval_recall import gold_passages

STAGES = ("pool", "top", "shown", "ranked", "drafted", "kept", "report", "answer")
DIAGNOSED = DEV_SETS
"""The sets this may trace: each has decided a keep/revert already or is run freely, so seeing where its gold is lost
tunes on nothing new."""


def trace(corpus: Any, question: str) -> dict[str, Any]:
    """Run the engine (hybrid, local provider) recording what each stage holds."""
    import anyio

    from deepr_mcp.embedding import shared_embedder
    from deepr_mcp.research.engine import Engine, new_state
    from deepr_mcp.research.providers.base import FindingsRequest
    from deepr_mcp.research.providers.local import LocalProvider, best_units
    from deepr_mcp.research.retrieval.hybrid import HybridSearch

    seen: dict[str, Any] = {
        "pool": set(),
        "top": set(),
        "shown": set(),
        "ranked": [],
        "places": [],  # beside each ranked sentence: "position/of [passage]"
        "drafted": [],
        "kept": [],
    }

    class Recording(LocalProvider):
        def research_now(self, request: Any) -> Any:
            completion = super().research_now(request)
            if isinstance(request, FindingsRequest):
                seen["shown"] |= {p.id for p in request.passages}
                ranked = best_units(request, self.near)
                seen["ranked"] += [f"{u.text} {u.code or ''}" for u, _, _ in ranked]
                seen["places"] += [f"{i}/{len(ranked)} [{n}]" for i, (_, n, _) in enumerate(ranked, 1)]
                seen["drafted"].append(completion.text)
            return completion

    search = HybridSearch(corpus, shared_embedder("minilm"))
    engine = Engine(corpus, Recording(search.embedder), search=search, retrieval="hybrid")
    retriever = engine.retriever
    retrieve, score, gather = retriever.retrieve, retriever._score, engine._gather
    pools: list[Any] = []

    def recording_score(pool: Any, *args: Any, **kwargs: Any) -> None:
        pools.append(pool)
        score(pool, *args, **kwargs)

    def recording_retrieve(sub_question: str, analysis: Any, k: int, also: Any = ()) -> Any:
        pools.clear()
        evidence = retrieve(sub_question, analysis, k, also)
        seen["pool"] |= set(pools[-1]) if pools else set()
        seen["top"] |= {p.id for p in evidence.passages}
        return evidence

    async def recording_gather(state: Any, sq: Any) -> None:
        await gather(state, sq)
        seen["kept"] += [f"{f.claim} {f.code or ''}" for f in sq.findings]

    retriever.retrieve = recording_retrieve  # type: ignore[method-assign]
    retriever._score = recording_score  # type: ignore[method-assign]
    engine._gather = recording_gather  # type: ignore[method-assign]
    t0 = time.perf_counter()
    state = anyio.run(engine.run, new_state(question))
    report = state.report or ""
    findings = [f for sq in state.sub_questions for f in sq.findings]
    return {
        **seen,
        "report": report,
        "seconds": time.perf_counter() - t0,
        "claims": len(findings),
        "words": len(report.split()),
    }


def stages_of(run: dict[str, Any], gold: dict[str, set[str]], phrases: list[str]) -> list[dict[str, bool]]:
    texts = {k: qm.normalise("\n".join(run[k])) for k in ("ranked", "drafted", "kept")}
    out = []
    for phrase, reported in zip(phrases, qm.gold_found(run["report"], phrases), strict=True):
        ids, norm = gold.get(phrase, set()), qm.normalise(phrase)
        held = {
            "pool": bool(ids & run["pool"]),
            "top": bool(ids & run["top"]),
            "shown": bool(ids & run["shown"]),
            **{k: norm in texts[k] for k in texts},
            "report": reported,
            "answer": bool(qm.answer_holds_gold(run["report"], [phrase])),
        }
        for i in range(len(STAGES) - 2, -1, -1):  # found later, so it passed every earlier stage
            held[STAGES[i]] = held[STAGES[i]] or held[STAGES[i + 1]]
        out.append(held)
    return out


def ranked_place(run: dict[str, Any], phrase: str) -> str:
    """Where the first ranked sentence holding ``phrase`` stood ("9/71 [1]"), or "" when none does."""
    norm = qm.normalise(phrase)
    places = run.get("places", [])
    for text, place in zip(run["ranked"], places, strict=False):
        if norm in qm.normalise(text):
            return place
    return ""


def lost_label(run: dict[str, Any], phrase: str, held: dict[str, bool]) -> str:
    """``stage:'phrase…'`` for a phrase the report misses, the stage being the first that lost it, with the
    sentence's place when the provider ranked it but did not draft it."""
    stage = next((s for s in STAGES if not held[s]), "report")
    place = ranked_place(run, phrase) if stage == "drafted" else ""
    return f"{stage}({place}):{phrase[:36]!r}" if place else f"{stage}:{phrase[:36]!r}"


def traced(questions: list[Any], warnings: bool = False) -> list[Any]:
    """The questions to trace, each with the phrases traced as its ``gold``: its gold phrases (a none question has
    none and is left out), or with ``warnings`` a safety question's warning phrases (the caveat a report that
    leaves out is unsafe), the other questions left out."""
    if warnings:
        return [replace(q, gold=list(q.warning)) for q in questions if q.warning]
    return [q for q in questions if q.answerable]


def run_corpus(name: str, only: list[str], question_set: str = "tuned", warnings: bool = False) -> dict[str, Any]:
    spec = CORPORA[name]
    chosen = [q for q in load_questions(spec.question_set(question_set)) if not only or q.id in only]
    questions = traced(chosen, warnings)
    corpus = open_corpus(ready_corpus(find_corpus(spec), reindex=False, spec=spec))
    gold = gold_passages(corpus, questions)
    rows = []
    try:
        for q in questions:
            run = trace(corpus, q.question)
            held = stages_of(run, gold, q.gold)
            shares = {s: sum(h[s] for h in held) / len(held) for s in STAGES}
            lost = [lost_label(run, p, h) for p, h in zip(q.gold, held, strict=True) if not h["report"]]
            rows.append({"id": q.id, **shares, "claims": run["claims"], "words": run["words"], "lost": lost})
            cells = " ".join(f"{shares[s]:5.2f}" for s in STAGES)
            print(f"{q.id:28} {cells} {run['claims']:3d} {run['words']:5d}  {' '.join(lost)}", flush=True)
    finally:
        corpus.close()
    return {"corpus": name, "rows": rows}


def summary(result: dict[str, Any]) -> str:
    rows = result["rows"]
    if not rows:
        return f"{result['corpus']:28} (no question to trace)"
    cells = " ".join(f"{statistics.mean(r[s] for r in rows):5.2f}" for s in STAGES)
    claims = statistics.mean(r["claims"] for r in rows)
    words = statistics.mean(r["words"] for r in rows)
    return f"{result['corpus']:28} {cells} {claims:5.1f} {words:6.0f}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.evidence_stages", description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default="all", choices=["all", *sorted(CORPORA)])
    p.add_argument("--set", default="tuned", choices=DIAGNOSED, help="which question set (default tuned)")
    p.add_argument("--only", action="append", default=[], metavar="ID")
    p.add_argument("--json", type=Path, metavar="PATH", help="write per-question stage shares here")
    p.add_argument("--warnings", action="store_true", help="trace safety questions' warning phrases, not gold")
    args = p.parse_args(argv)
    names = [spec.name for spec in having([CORPORA[n] for n in chosen_names(args.corpus)], [args.set])]
    if not names:
        p.error(f"no corpus chosen has the {args.set!r} question set")
    os.environ["DEEPR_RESEARCH_RETRIEVAL"] = "hybrid"
    header = f"{'question':28} " + " ".join(f"{s:>5}" for s in STAGES) + " claims words"
    results = []
    for name in names:
        print(f"\n{name}\n{header}", flush=True)
        results.append(run_corpus(name, args.only, args.set, args.warnings))
    print(f"\n{'corpus (mean)':28} " + " ".join(f"{s:>5}" for s in STAGES) + " claims words")
    for result in results:
        print(summary(result))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
