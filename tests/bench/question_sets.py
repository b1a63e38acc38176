"""What the tests of the bench's question sets share: a set's raw questions, and the check that its gold is
in the corpus and its questions are in a user's words, against the bench's cached passages (read-only;
skipped where this machine has not ingested the corpus). Nothing here runs the engine or retrieval."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bench import quality_metrics as qm
from bench import research_quality as rq
from bench.quality_corpora import CORPORA, CorpusSpec

_EIGHT = {"how-to": 3, "safety": 2, "comparison": 1, "concept": 1, "two-part": 1}
LATE_KINDS = {
    "python3-doc": {"how-to": 3, "safety": 2, "comparison": 2, "concept": 1, "definition": 1, "version": 1},
    "npm-docs": _EIGHT,
    "zsh-doc": _EIGHT,
    "pdf-manuals": _EIGHT,
}
"""How many questions of each type the first four corpora got in each late set (and in newcomer): 10 for
python3-doc, 8 for the others (larger than the fresh sets, whose six questions per corpus were too noisy), in
about the proportions of the earlier sets."""


def raw_questions(path: Path) -> list[dict]:
    return json.loads(path.read_text())["questions"]


def corpora_with(question_set: str) -> dict[str, CorpusSpec]:
    """The bench corpora that have this set, its file written (``node-api`` has only ``newcomer`` and ``outsider``,
    the others all ten: a file written in parallel counts once it is in the checkout)."""
    return {name: spec for name, spec in CORPORA.items() if spec.has_set(question_set)}


def every_question() -> list[dict]:
    """Every question of every set of every corpus (the sets whose file is written)."""
    return [q for spec in CORPORA.values() for name in spec.sets() for q in raw_questions(spec.question_set(name))]


def cached_passages(spec: CorpusSpec) -> str:
    """The corpus's cached passages (heading path and text), normalised and joined; skips when the bench
    has not ingested this corpus with this ingest code on this machine. Opened read-only."""
    db = rq.cache_folder(spec) / "corpus.db"
    if not db.is_file():
        pytest.skip(f"{spec.name} is not ingested here ({db}): python -m bench.research_quality --check-gold builds it")
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT location, text FROM passages ORDER BY rowid").fetchall()
    return "|".join(qm.normalise(f"{location}\n{text}") for location, text in rows)


def assert_well_formed(questions: list[dict], most_gold: int) -> None:
    """Each question has pages and text, 2 to ``most_gold`` gold phrases of 4-12 words not found in its own
    words (no free hits), warnings exactly for safety questions, an uncovered part exactly for two-part ones and
    two halves (two non-empty strings, both answered, so no uncovered part) exactly for both-parts ones."""
    for q in questions:
        assert q["pages"] and q["question"].strip(), q["id"]
        assert 2 <= len(q["gold"]) <= most_gold, q["id"]
        for phrase in q["gold"] + q.get("warning", []):
            assert 4 <= len(phrase.split()) <= 12, (q["id"], phrase)
            assert qm.normalise(phrase) not in qm.normalise(q["question"]), (q["id"], phrase)  # no free hits
        assert bool(q.get("warning")) == (q["type"] == "safety"), q["id"]
        assert bool(q.get("uncovered")) == (q["type"] == "two-part"), q["id"]
        assert ("halves" in q) == (q["type"] == "both-parts"), q["id"]
        if q["type"] == "both-parts":
            halves = q["halves"]
            assert isinstance(halves, list) and len(halves) == 2, q["id"]
            assert all(isinstance(h, str) and h.strip() for h in halves), q["id"]


def assert_answerable_in_users_words(spec: CorpusSpec, questions_file: Path) -> None:
    """Every gold and warning phrase is in the cached passages; no question shares more than
    ``QUESTION_OVERLAP`` consecutive words with them."""
    passages = cached_passages(spec)
    questions = rq.load_questions(questions_file)
    missing = [(q.id, p) for q in questions for p in q.gold + q.warning if qm.normalise(p) not in passages]
    assert missing == []
    copied = {q.id: qm.longest_shared_run(q.question, passages) for q in questions}
    assert {i: run for i, run in copied.items() if len(run) > rq.QUESTION_OVERLAP} == {}
