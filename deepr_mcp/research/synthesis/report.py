"""The report a reader keeps: the answer first, then findings by sub-question, gaps, sources.

No claim appears twice: near-duplicate findings are merged (citations joined) before anything
is rendered, and a finding already stated in the direct answer is not repeated under its
sub-question. Code is quoted as fenced code. Sources are named by the document's path relative
to the folder it was added from, plus the heading the passage sits under.
"""

from __future__ import annotations

from pathlib import PurePath

from deepr_mcp.research.models import Belief, Finding, Gap, ResearchState, SubQuestion
from deepr_mcp.research.reading.terms import terms
from deepr_mcp.research.synthesis import citations
from deepr_mcp.research.synthesis.claims import adds_nothing, same_claim, units
from deepr_mcp.research.synthesis.shape import fields_last, without_fields


def new_sentences(claim: str, said: list[str]) -> str:
    """The sentences of ``claim`` that say something not already in ``said`` (all of them, or "")."""
    sentences = [u.text for u in units(claim) if u.text]
    fresh = [s for s in sentences if not any(adds_nothing(s, old) for old in said)]
    return " ".join(fresh) if len(fresh) < len(sentences) else claim


def merge_duplicates(state: ResearchState) -> None:
    """Keep the first statement of each claim (plan order); later near-copies give it their citations.

    A later claim that repeats only one sentence of an earlier one keeps its other sentences, so
    the same warning never appears twice even inside longer claims.
    """
    kept: list[Finding] = []
    said: list[str] = []
    for sq in state.sub_questions:
        unique = []
        for finding in sq.findings:
            twin = next((k for k in kept if adds_nothing(finding.claim, k.claim)), None)
            rest = new_sentences(finding.claim, said) if twin is None else ""
            if twin is None and rest:
                finding.claim = rest
                kept.append(finding)
                unique.append(finding)
                said += [u.text for u in units(rest) if u.text]
                continue
            twin = twin or next((k for k in kept if set(k.passage_ids) & set(finding.passage_ids)), None)
            if twin is None:
                continue
            twin.passage_ids += [p for p in finding.passage_ids if p not in twin.passage_ids]
            twin.confidence = max(twin.confidence, finding.confidence)
            if twin.code is None and finding.code:
                twin.code = finding.code
        sq.findings = unique


def settle_with_findings(state: ResearchState) -> None:
    """A sub-question whose missing words a kept finding states is answered by that finding after
    all: a Gaps line never says the documents are silent on what the report itself cites. A passage
    shown near another unanswered part answers nothing, but it writes its words: they are not named as
    unsaid either (the part stays a gap, in the plainer words of ``gap_reason``)."""
    kept = [f for sq in state.sub_questions for f in sq.findings]
    for sq in state.sub_questions:
        if sq.status not in ("weak", "unanswered") or not sq.missing:
            continue
        wanted = [terms(phrase) for phrase in sq.missing]
        stating = [f for f in kept if all(w and w <= terms(f"{f.claim} {f.code or ''}") for w in wanted)]
        if stating:
            sq.status, sq.missing = "answered", []
            sq.covered_by = list(dict.fromkeys(p for f in stating for p in f.passage_ids))
    shown = terms(" ".join(f"{f.claim} {f.code or ''}" for sq in state.sub_questions for f in shown_findings(sq)))
    for sq in state.sub_questions:
        if sq.status in ("weak", "unanswered"):
            sq.missing = [phrase for phrase in sq.missing if not terms(phrase) <= shown]


def shown_findings(sq: SubQuestion) -> list[Finding]:
    """What the report lists under a part: its findings, or for a part judged unanswered the passages near it."""
    return sq.findings or (sq.near if sq.status in ("weak", "unanswered") else [])


def _silent_on(missing: list[str]) -> str:
    return "the documents say nothing about " + " or ".join(missing)


def gap_reason(sq: SubQuestion) -> str:
    """Plain words for what the documents do not answer."""
    if sq.missing:
        return _silent_on(sq.missing)
    if sq.no_figure:
        return "the passages found give no figure for it"
    if sq.status == "weak":
        return "the passages found share its words but none clearly answers it"
    if sq.nearest:
        return f"no passage found clearly answers it; the nearest was {sq.nearest}"
    return "no passage found clearly answers it"


NOT_ANSWERED = (
    "No passage found clearly answers this question (see Gaps); the documents may still say it in other words. "
    "The passages nearest to it say:"
)
"""Opens the Answer when no part is answered: what follows is what the documents say nearby, not an answer.
It says what the search found, not that the documents are silent: a question in the user's own words
can miss the one passage that answers it, and "the documents do not answer this" would then be false.
"Clearly", because what was measured is that no cited passage stands out by meaning: one of those listed
below may still answer it (on the bench, where every one-part question is answerable, about half of the
reports with this verdict quote some of the answer), and the reader is told to judge them, not to skip them."""


def unanswered(state: ResearchState) -> bool:
    """Whether every researched part of the question is a gap (so nothing cited answers it)."""
    parts = [sq for sq in state.sub_questions if sq.status != "pending"]
    return bool(parts) and all(sq.status in ("weak", "unanswered") for sq in parts)


def answer_findings(state: ResearchState, sq: SubQuestion) -> list[Finding]:
    """What the Answer may draw on for a part: its findings, and, when no part of the question is answered, what was
    drafted for a part judged off its topic (``sq.near``): the Answer then says no passage clearly answers it and
    gives the passages nearest to it, as for a question of one part."""
    return sq.findings or (sq.near if unanswered(state) else [])


def near_heading(state: ResearchState, sq: SubQuestion) -> str:
    """The heading of findings kept for a part they do not answer: it says so, so that the part is not
    both answered under its own heading and named under Gaps."""
    if len(state.sub_questions) == 1:
        return "Passages near the question (none clearly answers it)"
    return f"Passages near “{sq.text}” (none clearly answers it)"


def named_once(phrases: list[str]) -> list[str]:
    """``phrases`` without those another one says: "Sentry" beside "Kiln Sentry", "Kiln Sentry's" after
    "Kiln Sentry" (the same terms)."""
    sets = [{t for t in terms(p) if len(t) > 1} for p in phrases]  # a possessive's "s" adds nothing
    return [
        p
        for i, (p, mine) in enumerate(zip(phrases, sets, strict=True))
        if not any(j != i and (mine < other or (mine == other and j < i)) for j, other in enumerate(sets))
    ]


def beliefs_and_gaps(state: ResearchState) -> tuple[list[Belief], list[Gap]]:
    merge_duplicates(state)
    settle_with_findings(state)
    beliefs, gaps = [], []
    named: set[tuple[str, ...]] = set()
    for sq in state.sub_questions:
        for finding in sq.findings:
            numbers = [state.passages[pid].number for pid in finding.passage_ids if pid in state.passages]
            beliefs.append(
                Belief(claim=finding.claim, confidence=finding.confidence, citations=numbers, sub_question=sq.text)
            )
        unheard = [n for n in sq.unmentioned if not any(terms(n) <= terms(m) for m in sq.missing)]  # named once
        if sq.status in ("weak", "unanswered") or (sq.status == "answered" and unheard):
            # a part settled as answered by a finding keeps its answer; a name no passage writes is still a gap
            missing = named_once([*sq.missing, *unheard] if sq.status != "answered" else unheard)
            said = tuple(sorted(m.lower() for m in missing))
            if said and said in named:  # "gas boilers" named once, with every part that asked about them
                twin = next(g for g in gaps if tuple(sorted(m.lower() for m in g.missing)) == said)
                twin.sub_question = f"{twin.sub_question} {sq.text}"
                continue
            named.add(said)
            reason = gap_reason(sq) if sq.status != "answered" and not unheard else _silent_on(missing)
            gaps.append(Gap(sub_question=sq.text, reason=reason, missing=missing))
        elif sq.status == "pending":
            gaps.append(Gap(sub_question=sq.text, reason="not researched (the campaign stopped before it)"))
    beliefs.sort(key=lambda b: -b.confidence)
    return beliefs, gaps


def cite(state: ResearchState, finding: Finding) -> str:
    return "".join(f"[{state.passages[p].number}]" for p in finding.passage_ids if p in state.passages)


def answer_sentences(answer: str) -> list[str]:
    """The answer's sentences without citation markers (one cited piece may hold several)."""
    pieces = [citations.CITE.sub("", s).strip() for s in citations.split_sentences(answer)]
    return [u.text for piece in pieces for u in units(piece) if u.text] + pieces


def _fenced(code: str, indent: str = "") -> list[str]:
    return [f"{indent}```", *(f"{indent}{line}" if line else "" for line in code.splitlines()), f"{indent}```"]


def source_name(source: str) -> str:
    """A relative source as stored; an absolute path (an older corpus) by its file name."""
    path = PurePath(source)
    return path.name if path.is_absolute() else source


def render_report(state: ResearchState, answer: str, *, partial_note: str | None = None) -> str:
    """Markdown: the direct answer, a section per sub-question, gaps, and the numbered sources."""
    out = [f"# Research report: {state.question}", ""]
    if partial_note:
        out += [f"> **Partial report.** {partial_note}", ""]
    has_answer = bool(answer)
    if not answer:  # a stopped run read nothing: the corpus is not to blame
        answer = (
            "No answer: the research stopped before it could finish (see the note above)."
            if partial_note
            else "The corpus holds no evidence that answers this question."
        )
    if has_answer and unanswered(state):
        out += ["## Answer", "", f"_{NOT_ANSWERED}_", "", answer, ""]
    else:
        out += ["## Answer", "", answer, ""]
    silent = list(dict.fromkeys(m for g in state.gaps for m in g.missing))
    if silent and has_answer:
        out += [f"_The documents say nothing about {'; '.join(silent)} (see Gaps)._", ""]
    stated = answer_sentences(answer)
    findings = [f for sq in state.sub_questions for f in sq.findings]
    for finding in findings:
        if finding.code and any(same_claim(finding.claim, s) for s in stated):
            out += [*_fenced(finding.code), ""]
            break
    out += ["## Findings", ""]
    heading = len(out)
    for sq in state.sub_questions:
        # a sub-question is shown when it adds findings or was never researched; covered and
        # unanswered ones are named in the plan and under Gaps, not as empty sections
        # a reference entry reads as its sentence, its fields after it ("... (Default: true; Type: Boolean)")
        unanswered_part = sq.status in ("weak", "unanswered")
        kept = shown_findings(sq)  # near: drafted, judged no answer, shown as such
        shown = [(f, new_sentences(without_fields(f.claim) or f.claim, stated)) for f in kept]
        rest = [(f, fields_last(f.claim) if text == without_fields(f.claim) else text) for f, text in shown]
        rest = [(f, text) for f, text in rest if text and not any(adds_nothing(f.claim, s) for s in stated)]
        if rest:
            out += [f"### {near_heading(state, sq) if unanswered_part else sq.text}", ""]
            for finding, text in rest:
                out.append(f"- {text} {cite(state, finding)}")
                if finding.code:
                    out += _fenced(finding.code, "  ")
            out.append("")
        elif sq.status == "pending":
            out += [f"### {sq.text}", "", "_Not researched: the campaign stopped before this sub-question._", ""]
        elif sq.status == "answered" and (where := _cited(state, [*sq.covered_by, *_ids(sq.findings)])):
            out += [f"### {sq.text}", "", f"_Answered above: see {where}._", ""]
    if len(out) == heading:  # every finding is in the Answer already: no empty section
        del out[heading - 2 : heading]
    if state.gaps:
        out += ["## Gaps", "", "What the documents do not answer:", ""]
        out += [f"- {_gap_line(g)}" for g in state.gaps] + [""]
    out += ["## Sources", ""]
    for c in sorted(state.passages.values(), key=lambda c: c.number):
        where = f", {c.location}" if c.location else ""
        out.append(f"[{c.number}] {source_name(c.source)}{where} (passage {c.passage_id})")
    return "\n".join(out).rstrip() + "\n"


def _ids(findings: list[Finding]) -> list[str]:
    return [p for f in findings for p in f.passage_ids]


def _cited(state: ResearchState, passage_ids: list[str]) -> str:
    numbers = sorted({state.passages[p].number for p in passage_ids if p in state.passages})
    return "".join(f"[{n}]" for n in numbers)


def _gap_line(gap: Gap) -> str:
    if gap.missing:
        return f"The documents say nothing about {' or '.join(gap.missing)} (asked: {gap.sub_question})"
    return f"{gap.sub_question} ({gap.reason})"


def partial_report(state: ResearchState, reason: str) -> str:
    """The report from whatever was gathered, for an aborted or budget-stopped campaign."""
    state.beliefs, state.gaps = beliefs_and_gaps(state)
    answer = " ".join(f"{b.claim} " + "".join(f"[{n}]" for n in b.citations) for b in state.beliefs[:3])
    return render_report(state, answer, partial_note=reason)
