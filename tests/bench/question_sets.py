"""What the tests of the bench's question sets share: a set's raw questions, and the check that its gold is
in the corpus and its questions are in a user's words, against the bench's cached passages (read-only;
skipped where this machine has not ingested the corpus); and the checks the eighth session's sets (``outsider``,
``stranger``, and ``visitor`` with kinds of its own), written to one brief, have in common, which the ninth session's
``wayfarer`` (with the ``none`` kind) shares. Nothing here runs the engine or retrieval."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from bench import evidence_stages
from bench import quality_metrics as qm
from bench import research_quality as rq
from bench.quality_corpora import CORPORA, QUESTION_DIR, QUESTION_SETS, CorpusSpec
from bench.question_sets import RUN_ONCE, TRACED

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
    """The bench corpora that have this set, its file written (``node-api`` has only some of the sets written since
    ``newcomer``: a file written in parallel counts once it is in the checkout)."""
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
    two halves (two non-empty strings, both answered, so no uncovered part) exactly for both-parts ones; a ``none``
    question (the docs do not answer it) has text, no gold and no pages, and names what is absent, nothing else."""
    for q in questions:
        assert ("absent" in q) == (q["type"] == "none"), q["id"]
        if q["type"] == "none":
            assert q["question"].strip() and q["gold"] == [] and q["pages"] == [], q["id"]
            assert isinstance(q["absent"], list) and q["absent"], q["id"]
            assert all(isinstance(a, str) and a.strip() for a in q["absent"]), q["id"]
            assert not {"warning", "uncovered", "halves"} & set(q), q["id"]
            continue
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


# -- the eighth session's sets, outsider, stranger and visitor, written to one brief ------------------

_GAPS_EIGHT = {"how-to": 2, "safety": 2, "comparison": 1, "concept": 1, "two-part": 1, "both-parts": 1}
GAPS_KINDS = {
    "python3-doc": {
        "how-to": 2,
        "safety": 2,
        "comparison": 1,
        "concept": 1,
        "definition": 1,
        "version": 1,
        "two-part": 1,
        "both-parts": 1,
    },
    "npm-docs": _GAPS_EIGHT,
    "zsh-doc": _GAPS_EIGHT,
    "pdf-manuals": _GAPS_EIGHT,
    "node-api": {"how-to": 2, "safety": 2, "comparison": 1, "concept": 1, "two-part": 2, "both-parts": 2},
}
"""Each corpus's outsider and stranger set (the writers' common brief, issue 33): 10 questions for python3-doc and
node-api, 8 for the others, each with at least one two-part and one both-parts question, the kinds that test a
report's Gaps."""
_VISITOR_EIGHT = {"how-to": 2, "safety": 2, "two-part": 2, "both-parts": 2}
_VISITOR_TEN = {"how-to": 2, "safety": 2, "comparison": 1, "concept": 1, "two-part": 2, "both-parts": 2}
VISITOR_KINDS = {
    "python3-doc": _VISITOR_TEN,
    "npm-docs": _VISITOR_EIGHT,
    "zsh-doc": _VISITOR_EIGHT,
    "pdf-manuals": _VISITOR_EIGHT,
    "node-api": _VISITOR_TEN,
}
"""Each corpus's visitor set (its writers' brief): the same sizes, richer in two-part and both-parts questions (two of
each per corpus), the open problem it measures; the 8-question corpora drop comparison and concept for them."""
_WAYFARER_EIGHT = {"how-to": 2, "safety": 1, "comparison": 1, "two-part": 1, "both-parts": 1, "none": 2}
_WAYFARER_TEN = {"how-to": 2, "safety": 2, "comparison": 1, "concept": 1, "two-part": 1, "both-parts": 1, "none": 2}
WAYFARER_KINDS = {
    "python3-doc": _WAYFARER_TEN,
    "npm-docs": _WAYFARER_EIGHT,
    "zsh-doc": _WAYFARER_EIGHT,
    "pdf-manuals": _WAYFARER_EIGHT,
    "node-api": _WAYFARER_TEN,
}
"""Each corpus's wayfarer set (its writers' brief, the ninth session): the same sizes, with two ``none`` questions per
corpus (the docs do not answer them at all: the report should say so), one two-part and one both-parts."""
PILGRIM_KINDS = {name: kinds for name, kinds in WAYFARER_KINDS.items() if name != "node-api"}
"""Each corpus's set from pilgrim on (the tenth session's brief for two helpers, which every later set's helpers
followed, adapted, as ``research_questions/WRITING.md`` now): wayfarer's kinds and sizes; no node-api file (the machine
that wrote pilgrim held Node.js 18's pages, not the 20 the other node-api sets were written against)."""


def id_prefixes(code: str) -> dict[str, str]:
    """Each corpus's question-id prefix for a set's short code (``os`` for outsider: ``os-``, ``npm-os-``...)."""
    return {
        "python3-doc": f"{code}-",
        "npm-docs": f"npm-{code}-",
        "zsh-doc": f"zsh-{code}-",
        "pdf-manuals": f"pdf-{code}-",
        "node-api": f"node-{code}-",
    }


def assert_registered_for_every_corpus(question_set: str, position: int) -> None:
    """The set is ``QUESTION_SETS[position]``, every corpus maps it to its file (python3-doc's beside the tuned
    file, the others' in ``research_questions/``), a corpus has it once its file is written, and
    ``evidence_stages`` refuses to trace it (run once) until it is a dev set (``TRACED``) after its run."""
    assert QUESTION_SETS.index(question_set) == position
    assert set(GAPS_KINDS) == set(CORPORA)
    python = CORPORA["python3-doc"].question_files[question_set]
    assert python == QUESTION_DIR.parent / f"research_questions_{question_set}.json"
    for name in ("npm-docs", "zsh-doc", "pdf-manuals", "node-api"):
        assert CORPORA[name].question_files[question_set] == QUESTION_DIR / f"{name}-{question_set}.json"
    written = {name for name, spec in CORPORA.items() if spec.question_files[question_set].is_file()}
    assert set(corpora_with(question_set)) == written
    assert question_set in RUN_ONCE
    assert (question_set in evidence_stages.DIAGNOSED) == (question_set in TRACED)


def assert_planned_set(
    name: str,
    question_set: str,
    id_prefix: str,
    new_kinds: set[str],
    kinds: dict[str, dict[str, int]] = GAPS_KINDS,
    note_says: tuple[str, ...] = (),
    session: str = "eighth session",
    date: str = "2026-11-27",
) -> None:
    """The corpus's file of the set: a note naming the set, its ``date`` and ``session`` (and ``note_says``),
    ``uncovered`` and ``halves`` and the check command; the planned ``kinds`` (none new but ``new_kinds``), ids with
    the prefix, both-parts questions loaded with two halves and no uncovered part, and ``none`` questions loaded with
    no gold and what is absent."""
    path = CORPORA[name].question_set(question_set)
    data = json.loads(path.read_text())
    note = data["note"]
    assert question_set in note.lower() and date in note and session in note
    assert all(words in note for words in note_says)
    assert "uncovered" in note and "halves" in note
    assert f"--corpus {name} --set {question_set} --check-gold --check-questions" in note
    questions = rq.load_questions(path)  # the bench's own loader accepts it
    assert Counter(q.type for q in questions) == kinds[name]
    assert all(q.id.startswith(id_prefix) for q in questions)
    kinds_used_before = {q["type"] for q in every_question() if q not in raw_questions(path)}
    assert set(kinds[name]) - new_kinds <= kinds_used_before
    both = [q for q in questions if q.type == "both-parts"]
    assert all(len(q.halves) == 2 and not q.uncovered for q in both)  # loaded onto the Question
    nones = [q for q in questions if q.type == "none"]
    assert all(q.absent and not q.gold and not q.pages for q in nones)  # loaded onto the Question


def assert_well_formed_and_new(name: str, question_set: str) -> None:
    """Well formed (``assert_well_formed``, at most 3 gold phrases), and no question asked in any other set."""
    mine = raw_questions(CORPORA[name].question_set(question_set))
    assert_well_formed(mine, most_gold=3)
    ids = {q["id"] for q in mine}
    # another set's questions by id, not by text: a question of another set worded as one of mine must be caught
    asked = {qm.normalise(q["question"]) for q in every_question() if q["id"] not in ids}
    new = {qm.normalise(q["question"]) for q in mine}
    assert len(new) == len(mine) and not asked & new


def assert_skipped_without_its_file(question_set: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``with_the_set`` keeps exactly the corpora whose file is written and says of each other one, on stderr, that
    it has no such set."""
    written = [name for name, spec in CORPORA.items() if spec.has_set(question_set)]
    args = rq.parse_args(["--set", question_set])
    kept = [spec.name for spec in rq.with_the_set(list(CORPORA.values()), args)]
    assert kept == written
    skipped = [line for line in capsys.readouterr().err.splitlines() if "skipped" in line]
    assert len(skipped) == len(CORPORA) - len(written)
    assert all(f"has no {question_set!r} question set" in line for line in skipped)
