"""The research bench's question sets: one entry each, the only place a set is registered.

A set is a question file per corpus: ``bench/research_questions_<name>.json`` for python3-doc and
``bench/research_questions/<corpus>-<name>.json`` for the others (``tuned``'s without the suffix;
``quality_corpora.set_files``); a corpus has the set once its file is written (``CorpusSpec.has_set``). ``node-api``
registers the sets written since it came, with ``newcomer``. Each entry's role decides what may read it:

- ``Role.DEV``: worked on, run and traced as often as needed (``evidence_stages``, ``coverage_judge`` and
  ``search_recall`` take these, ``DEV_SETS``);
- ``Role.UNTOUCHED``: written to be run once and not run yet: nobody runs it (``research_quality --check-gold`` and
  ``--check-questions`` only) before the lead of session ``run_at`` runs it once, every mode, at that session's end;
  every other bench refuses it;
- ``Role.RAN_ONCE``: had that one run at the end of session ``run_at``: a bench that never tunes may read it as a
  check (``search_recall --sets run-once``), and it is still never traced;
- ``Role.TRACED``: had that one run, and later sessions' dev runs have traced it since: a dev set now
  (``DEV_SETS``), and no longer a check.

Registering a set: add its entry at the end of ``SETS`` (role ``UNTOUCHED``) and its question files
(``research_questions/WRITING.md``). After its one run: change its role to ``RAN_ONCE``. ``python -m
bench.question_sets`` prints the table.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import Enum


class Role(Enum):
    DEV = "dev set"
    UNTOUCHED = "untouched"
    RAN_ONCE = "ran once"
    TRACED = "ran once, then traced"


@dataclass(frozen=True, slots=True)
class QuestionSet:
    name: str
    code: str
    """The short code its question ids carry (``sc``: ``sc-...``, ``npm-sc-...``); ``tuned``'s ids carry none."""
    written: int
    """The session that wrote it (its files' notes name it, from ``fresh`` on)."""
    day: str
    """The day it was written (its files' notes give it, from ``fresh`` on)."""
    role: Role
    run_at: int | None
    """The session at whose end it had (``RAN_ONCE``) or will have (``UNTOUCHED``) its one run; ``None`` for a dev
    set (its note says when it was first run)."""
    note: str
    """What it is, in a line: what the role and sessions do not say."""

    def __post_init__(self) -> None:
        if (self.role is Role.DEV) != (self.run_at is None):
            raise ValueError(f"question set {self.name!r}: a set run once has run_at, a dev set has none")
        if self.run_at is not None and self.run_at < self.written:
            raise ValueError(f"question set {self.name!r}: run_at is before the session that wrote it")

    def status(self) -> str:
        """Its role in words: ``dev set``, ``run once at the twentieth session's end``, ``untouched until ...``."""
        if self.run_at is None:
            return self.role.value
        verb = "untouched until" if self.role is Role.UNTOUCHED else "run once at"
        since = ", a dev set since" if self.role is Role.TRACED else ""
        return f"{verb} the {ordinal(self.run_at)} session's end{since}"


# fmt: off
SETS = (
    # name, id code, written in session, on day, role, run once at that session's end; note
    QuestionSet("tuned", "", 1, "2026-11-26", Role.DEV, None,
                "the set to work on; python3-doc's 52 questions were written for issue 17 (2026-11-23)"),
    QuestionSet("heldout", "ho", 1, "2026-11-26", Role.DEV, None,
                "python3-doc's from issue 17 too; run at the first session's end, it decided a revert in the second"),
    QuestionSet("fresh", "fr", 3, "2026-11-26", Role.DEV, None,
                "kept for the third session's end, as heldout had decided a revert; it decided one too (94b613a)"),
    QuestionSet("untouched", "un", 3, "2026-11-26", Role.DEV, None,
                "written after heldout and fresh had decided a keep/revert; run once at the fourth session's end"),
    QuestionSet("unseen", "us", 5, "2026-11-26", Role.DEV, None,
                "written when every set had been run; run once at the fifth session's end"),
    QuestionSet("blind", "bl", 6, "2026-11-26", Role.DEV, None,
                "run once on the sixth session's start code (0e204c6), before its changes"),
    QuestionSet("sealed", "se", 6, "2026-11-26", Role.DEV, None,
                "written after blind's run; run once on the sixth session's final code"),
    QuestionSet("pristine", "pr", 6, "2026-11-26", Role.TRACED, 6,
                "written after sealed's run, in the same session"),
    QuestionSet("newcomer", "nc", 7, "2026-11-27", Role.TRACED, 7,
                "node-api's first set (a corpus nobody tuned on) and the first four corpora's ninth"),
    QuestionSet("outsider", "os", 8, "2026-11-27", Role.TRACED, 8,
                "by three helpers, for issue 33 (each part answered or named a gap); brought the both-parts kind"),
    QuestionSet("stranger", "st", 8, "2026-11-27", Role.TRACED, 8,
                "outsider's brief: an untouched check of the same change"),
    QuestionSet("visitor", "vi", 8, "2026-11-27", Role.TRACED, 9,
                "outsider's brief, rich in two-part and both-parts questions (two of each per corpus)"),
    QuestionSet("wayfarer", "wf", 9, "2026-11-27", Role.TRACED, 10,
                "by three helpers; brought the none kind: questions the docs do not answer at all"),
    QuestionSet("rover", "rv", 10, "2026-11-27", Role.DEV, None,
                "only none questions: a dev set for honesty about what the docs do not say"),
    QuestionSet("pilgrim", "pg", 10, "2026-11-27", Role.TRACED, 11,
                "by two helpers, wayfarer's kinds; no node-api file (that machine held Node.js 18's pages), nor since"),
    QuestionSet("nomad", "nm", 11, "2026-11-27", Role.RAN_ONCE, 12,
                "by two helpers from pilgrim's brief"),
    QuestionSet("drifter", "dr", 12, "2026-11-27", Role.RAN_ONCE, 13,
                "by two helpers from nomad's brief"),
    QuestionSet("rambler", "rb", 13, "2026-11-27", Role.RAN_ONCE, 14,
                "by two helpers from drifter's brief"),
    QuestionSet("trekker", "tk", 14, "2026-11-27", Role.RAN_ONCE, 15,
                "by two helpers from rambler's brief"),
    QuestionSet("wanderer", "wd", 15, "2026-11-28", Role.RAN_ONCE, 16,
                "by two helpers from trekker's brief"),
    QuestionSet("voyager", "vy", 16, "2026-11-28", Role.RAN_ONCE, 17,
                "by two helpers from wanderer's brief"),
    QuestionSet("strider", "sd", 17, "2026-11-28", Role.RAN_ONCE, 18,
                "by two helpers from voyager's brief"),
    QuestionSet("roamer", "rm", 18, "2026-11-28", Role.RAN_ONCE, 19,
                "by two helpers from strider's brief, kept as WRITING.md; its notes name the session that runs it"),
    QuestionSet("ranger", "rg", 19, "2026-11-28", Role.RAN_ONCE, 20,
                "by two helpers from WRITING.md"),
    QuestionSet("scout", "sc", 20, "2026-11-28", Role.RAN_ONCE, 21,
                "by two helpers from WRITING.md"),
    QuestionSet("hiker", "hk", 21, "2026-11-28", Role.RAN_ONCE, 22,
                "zsh-doc, pdf-manuals by a 21st-session helper; python3-doc, npm-docs by the 22nd lead (2026-11-29)"),
    QuestionSet("walker", "wk", 22, "2026-11-29", Role.RAN_ONCE, 23,
                "by four helpers from WRITING.md (python3-doc, npm-docs: late hiker files, ids and notes changed)"),
    QuestionSet("trotter", "tr", 23, "2026-11-29", Role.RAN_ONCE, 24,
                "by four helpers from WRITING.md, asked at the session's start (all four delivered within 50 minutes)"),
    QuestionSet("climber", "cl", 24, "2026-11-29", Role.RAN_ONCE, 25,
                "by four helpers from WRITING.md, asked at the session's start (all four delivered within 45 minutes)"),
    QuestionSet("paddler", "pd", 25, "2026-11-29", Role.RAN_ONCE, 26,
                "four helpers from WRITING.md, modelled on trotter, asked at the session's start (within 40 minutes)"),
    QuestionSet("sailor", "sa", 26, "2026-11-29", Role.RAN_ONCE, 27,
                "four helpers from WRITING.md, modelled on climber, asked at the session's start (within 35 minutes)"),
    QuestionSet("rider", "rd", 27, "2026-11-29", Role.RAN_ONCE, 28,
                "four helpers from WRITING.md, modelled on paddler, asked at the session's start (within 30 minutes)"),
    QuestionSet("cyclist", "cy", 28, "2026-11-29", Role.RAN_ONCE, 29,
                "four helpers from WRITING.md, modelled on sailor, asked at the session's start (within 35 minutes)"),
    QuestionSet("runner", "ru", 29, "2026-11-29", Role.RAN_ONCE, 30,
                "four helpers from WRITING.md, modelled on rider, asked at the session's start (within 10 minutes)"),
    QuestionSet("skater", "sk", 30, "2026-11-30", Role.UNTOUCHED, 31,
                "four helpers from WRITING.md, modelled on cyclist, asked at the session's start (within 35 minutes)"),
)
# fmt: on
"""Every question set, in the order they were written."""

QUESTION_SETS = tuple(s.name for s in SETS)
"""Every set's name, in the order they were written (``--set``'s choices)."""
DEV_SETS = tuple(s.name for s in SETS if s.role in (Role.DEV, Role.TRACED))
"""The sets worked on: each has decided a keep/revert already or is run freely, so tracing it tunes on nothing new."""
RUN_ONCE = tuple(s.name for s in SETS if s.role is not Role.DEV)
"""The sets written to be run once, by the lead at a session's end: never traced before that run, so that nothing
is tuned on them (``TRACED`` ones have been since)."""
UNTOUCHED = tuple(s.name for s in SETS if s.role is Role.UNTOUCHED)
"""The sets of ``RUN_ONCE`` not run yet: no bench but ``research_quality --check-*`` may read them until the lead
runs them (``search_recall`` and ``evidence_stages`` refuse them)."""
RAN_ONCE = tuple(s.name for s in SETS if s.role is Role.RAN_ONCE)
"""The sets of ``RUN_ONCE`` that have had their one run: a bench that never tunes may read them as a check."""
TRACED = tuple(s.name for s in SETS if s.role is Role.TRACED)
"""The sets of ``RUN_ONCE`` that had their one run and have been traced since: dev sets (``DEV_SETS``), no check."""
NEVER_TRACED = tuple(s.name for s in SETS if s.role in (Role.UNTOUCHED, Role.RAN_ONCE))
"""``RUN_ONCE`` but for ``TRACED``: the sets a bench that traces refuses (waiting for their run, or kept as a check)."""


def ordinal(n: int) -> str:
    """``21`` -> ``twenty-first`` (1 to 99): the notes and docs name sessions in words."""
    units = ("", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
    if n < 10:
        return units[n]
    if n < 20:
        return ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
                "eighteenth", "nineteenth")[n - 10]  # fmt: skip
    tens = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")[n // 10 - 2]
    return f"{tens[:-1]}ieth" if n % 10 == 0 else f"{tens}-{units[n % 10]}"


def set_help() -> str:
    """``research_quality --set``'s help: the sets worked on, those run once and those waiting for their run."""

    def named(role: Role) -> str:
        return ", ".join(f"{s.name} ({ordinal(s.run_at)})" if s.run_at else s.name for s in SETS if s.role is role)

    waiting = (
        f"; untouched until the lead runs it once at the end of the session named, --check-gold and "
        f"--check-questions only before: {named(Role.UNTOUCHED)}"
        if UNTOUCHED
        else ""
    )
    return (
        f"which question set (default tuned, the one to work on; bench/question_sets.py says what each is): dev sets, "
        f"run as often as needed: {named(Role.DEV)}, and run once then traced: {named(Role.TRACED)}; "
        f"run once, at the end of the session named, never traced: "
        f"{named(Role.RAN_ONCE)}{waiting}; a corpus without the set is skipped, with a line saying so"
    )


def main() -> int:
    """Print the table, one row per set."""
    print("| # | set | ids | written | role | note |\n|---:|---|---|---|---|---|")
    for i, s in enumerate(SETS, 1):
        print(f"| {i} | {s.name} | {s.code or '-'} | {ordinal(s.written)} session, {s.day} | {s.status()} | {s.note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
