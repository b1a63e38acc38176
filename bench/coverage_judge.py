"""How well the meaning judge tells a part the documents answer from one they say nothing about.

Run: ``.venv/bin/python -m bench.coverage_judge [--corpus NAME|all] [--set NAME ...] [--verbose]``
(default: every set already used for decisions; hybrid retrieval, the local provider).

Issue 33 asks that a report name as a gap every part the documents do not answer, and only those.
The engine decides it per part with ``synthesis.meaning.MeaningJudge``: a cited passage must stand
``COVER_SPREAD`` standard deviations above the corpus's mean cosine, for the part and for the whole
question, or, for a part of a question of several parts, past the midpoint of that and the embedder's
``answer_cosine`` (its margin, ``MeaningJudge.margins``, not negative). This bench records every such
judgement the engine makes and labels it:

- ``covered``: a passage cited for the part holds one of the question's gold phrases, so the part is
  answered and a Gaps line naming it would be false;
- ``uncovered``: the half of a two-part question that the bench marks ``uncovered`` (the part whose
  words share most with that description and least with the gold), so the part is a gap;
- ``none``: a part of a question the documents do not answer at all (a ``none`` question), so the part is a
  gap and the report should admit it.

It prints, per corpus: how many covered parts the judge calls answered, how many uncovered halves it
calls gaps, the AUC of the statistic it thresholds (the chance a covered part's statistic exceeds an
uncovered half's: 0.5 is a coin, 1.0 separates them at some threshold), how many parts of ``none``
questions it calls gaps, and for questions of one part the AUC of a covered one against a ``none`` one (the choice
there is between an answer and admitting none). A better judge (a token-level model, a cross-encoder, the client's
own model) should raise the AUC, not just move the threshold. ``--dump PATH`` writes every judgement (corpus, part,
verdict, margin, label) as JSON, to weigh another threshold without running the engine again.
The sets written to be run once (``question_sets.RUN_ONCE``) are refused, unless traced since (``TRACED``): it
reads the dev sets only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.evidence_stages import DIAGNOSED
from bench.quality_corpora import CORPORA, chosen_names, having
from bench.research_quality import find_corpus, load_questions, open_corpus, ready_corpus
from bench.retrieval_recall import gold_passages

_WORD = re.compile(r"[a-z]{3,}")


@dataclass(frozen=True, slots=True)
class Judgement:
    """One part's meaning judgement as the engine made it, with the statistic it thresholded."""

    question_id: str
    part: str
    verdict: bool | None
    statistic: float
    label: str  # "covered", "uncovered", "none" or "" (neither: no gold cited, not the uncovered half)
    several: bool = False
    """Whether the part is one of several (its margin then sums the corpus's bar and the model's)."""


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def uncovered_part(parts: list[str], uncovered: list[str], gold: list[str]) -> str | None:
    """The part the bench's ``uncovered`` description names: most of its words, fewest of the gold's."""
    if not uncovered or len(parts) < 2:
        return None
    named, answered = words(" ".join(uncovered)), words(" ".join(gold))

    def fit(part: str) -> float:
        own = words(part) or {""}
        return (len(own & named) - len(own & answered)) / len(own)

    return max(parts, key=fit)


def auc(positive: list[float], negative: list[float]) -> float | None:
    """Chance a positive's statistic exceeds a negative's (ties count half); None without both kinds."""
    if not positive or not negative:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in positive for n in negative)
    return wins / (len(positive) * len(negative))


def judgements(corpus: Any, question: Any, gold_ids: set[str]) -> list[Judgement]:
    """Run the engine on one question, recording each part's meaning judgement."""
    import anyio

    from deepr_mcp.embedding import shared_embedder
    from deepr_mcp.research.engine import Engine, new_state
    from deepr_mcp.research.providers.local import LocalProvider
    from deepr_mcp.research.retrieval.hybrid import HybridSearch
    from deepr_mcp.research.synthesis.meaning import MeaningJudge
    from deepr_mcp.research.synthesis.standing import leaning

    search = HybridSearch(corpus, shared_embedder("minilm"))
    engine = Engine(corpus, LocalProvider(search.embedder), search=search, retrieval="hybrid")
    judge = MeaningJudge(corpus, search.embedder)
    made: list[tuple[str, str, str, list[str], bool | None]] = []
    meaning = engine.standing.meaning  # the part's judge (``synthesis.standing.PartStanding``)

    def recording(state: Any, sq: Any, passage_ids: list[str]) -> bool | None:
        verdict = meaning(state, sq, passage_ids)
        made.append((sq.text, state.question, leaning(sq, state), list(passage_ids), verdict))
        return verdict

    engine.standing.meaning = recording  # type: ignore[method-assign]
    state = anyio.run(engine.run, new_state(question.question))
    parts = [sq.text for sq in state.sub_questions]
    gap = uncovered_part(parts, question.uncovered, question.gold)
    out = []
    several = len(parts) > 1
    for part, whole, context, ids, verdict in made:  # the margins as the engine took them, a bare part leaning
        margins = judge.margins(list(dict.fromkeys([part, whole])), ids, context, several=several)
        if not margins:
            continue
        label = "none" if question.type == "none" else "uncovered" if part == gap else ""
        label = label or ("covered" if set(ids) & gold_ids else "")
        out.append(Judgement(question.id, part, verdict, max(margins.values()), label, several))
    return out


def run_corpus(name: str, sets: list[str]) -> list[Judgement]:
    spec = CORPORA[name]
    corpus = open_corpus(ready_corpus(find_corpus(spec), reindex=False, spec=spec))
    out: list[Judgement] = []
    try:
        for chosen in [s for s in sets if spec.has_set(s)]:
            questions = load_questions(spec.question_set(chosen))  # a none question has no gold: its parts are gaps
            gold = gold_passages(corpus, [q for q in questions if q.answerable])
            for q in questions:
                ids = set().union(*(gold.get(p, set()) for p in q.gold))
                out += judgements(corpus, q, ids)
    finally:
        corpus.close()
    return out


def row(name: str, made: list[Judgement]) -> str:
    covered = [j for j in made if j.label == "covered"]
    uncovered = [j for j in made if j.label == "uncovered"]
    answered = sum(j.verdict is True for j in covered)
    gaps = sum(j.verdict is False for j in uncovered)
    nones = [j for j in made if j.label == "none"]
    admitted = sum(j.verdict is False for j in nones)
    area = auc([j.statistic for j in covered], [j.statistic for j in uncovered])
    alone = [j.statistic for j in covered if not j.several], [j.statistic for j in nones if not j.several]
    shown = ["n/a" if a is None else f"{a:.2f}" for a in (area, auc(*alone))]
    return (
        f"| {name} | {len(made)} | {answered} of {len(covered)} | {gaps} of {len(uncovered)} | {shown[0]} "
        f"| {admitted} of {len(nones)} | {shown[1]} |"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.coverage_judge", description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default="all", choices=["all", *sorted(CORPORA)])
    p.add_argument("--set", action="append", choices=DIAGNOSED, help="a question set (repeatable; default all used)")
    p.add_argument("--verbose", action="store_true", help="print every labelled judgement")
    p.add_argument("--dump", type=Path, metavar="PATH", help="write every judgement here as JSON")
    args = p.parse_args(argv)
    sets = args.set or list(DIAGNOSED)
    names = [spec.name for spec in having([CORPORA[n] for n in chosen_names(args.corpus)], sets)]
    os.environ["DEEPR_RESEARCH_RETRIEVAL"] = "hybrid"
    heads = ["judgements", "covered parts called answered", "uncovered halves called gaps", "AUC"]
    heads += ["none parts called gaps", "AUC, one-part questions: covered / none"]
    print(f"| corpus | {' | '.join(heads)} |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    every: list[Judgement] = []
    dumped: list[dict[str, Any]] = []
    for name in names:
        made = run_corpus(name, sets)
        every += made
        dumped += [{"corpus": name, **asdict(j)} for j in made]
        print(row(name, made), flush=True)
        if args.verbose:
            for j in sorted(made, key=lambda j: (j.label, j.statistic)):
                if j.label:
                    print(f"    {j.label:9} {j.statistic:5.2f} {j.verdict!s:5} {j.question_id} | {j.part[:70]}")
    print(row("all", every))
    if args.dump:
        args.dump.write_text(json.dumps(dumped, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
