"""The local provider's direct answer: the findings that answer the question, in a few sentences.

A careful reader objects to an answer that speaks of something else ("`kilnctl vent` ... Changed in
version 3.1" for a question about the cone pack), to a sentence that is no statement (a bare
signature, a fragment cut at "(i.e."), and, for a question about doing something safely, to an
answer that ends on a recipe quoting the unguarded code. Each finding is held to that before it
may lead; what the answer leaves out stays under its sub-question.
"""

from __future__ import annotations

import re

from deepr_mcp.research.providers.base import AnswerRequest, StatedFinding
from deepr_mcp.research.reading.analysis import QuestionAnalysis, warns
from deepr_mcp.research.reading.cues import ANSWER_CUES, CAVEAT
from deepr_mcp.research.reading.terms import GENERIC, terms
from deepr_mcp.research.synthesis import citations
from deepr_mcp.research.synthesis.claims import contrasts, opening
from deepr_mcp.research.synthesis.relevance import HARM as _HARM
from deepr_mcp.research.synthesis.relevance import PROTECT_CUE
from deepr_mcp.research.synthesis.shape import is_sentence, without_fields
from deepr_mcp.text.tokenizer import tokenize

ANSWER_SENTENCES = 3
ANSWER_WORDS = 110
ANSWER_FIRST_BONUS = 0.4
"""For each sub-question's opener: its finding closest in meaning to the question (``StatedFinding.closeness``),
or without an embedder its first, which the findings step ranked with the passages in view."""
ANSWER_CLOSENESS_WEIGHT = 2.0
"""Each finding's closeness in meaning to the question (``StatedFinding.closeness``, a cosine) counts this many
times its share of the question's words: the user asks in their words, and the line that answers is often in
the documents'. Measured on the bench's 179 used questions, replaying the answer step on the same findings:
an Answer holding a gold line 0.34 -> 0.38 (weight 1) -> 0.40 (weight 2 and 3), better on every corpus."""
ANSWER_MIN_SHARE = 0.34
ANSWER_MORE_SHARE = 0.6
"""A finding joins the direct answer only if it holds at least a third of the question's key terms."""
BOTH_SIDES_BONUS = 0.3
"""For a comparison, a finding naming both sides answers it better than one naming either."""
MIN_WORDS = 4
"""Words outside code a sentence needs to say something (a bare signature says nothing)."""
_PROTECTS = re.compile(PROTECT_CUE, re.I)
_OPTION_ENTRY = re.compile(r"^`--?[A-Za-z]")
"""A command-line option's entry ("`-l` Do not recurse into subdirectories ..."): it answers which
option a tool takes, so it leads only when the question asks about options or the command line."""
_DOES_IT = re.compile(r"^\W*(?:\w+\W+){0,4}?(?:do|does|doing|achieve|accomplish)\s+(?:it|this|that|so)\b", re.I)
"""A sentence whose task is a pronoun ("You can do it from the shell prompt ...", "To do so, ...")
leans on the sentence before it for what it does: alone, as an answer, it says nothing."""
_ASKS_OPTIONS = re.compile(r"\b(?:options?|flags?|switch(?:es)?|command[- ]line|cli)\b", re.I)


def _share(wanted: set[str], have: set[str]) -> float:
    return len(wanted & have) / len(wanted) if wanted else 0.0


def word_set(text: str) -> set[str]:
    """Content words as written, lower case: "operation" does not name "the operator",
    though both stem to "oper"."""
    return {w for w in re.findall(r"[a-z0-9_]+", text.lower()) if (t := tokenize(w)) and t[0] not in GENERIC}


def names(side: set[str], claim: set[str]) -> bool:
    """Whether a claim's words name one of a subject's words (a plural "operators" names "operator")."""
    return any(w in claim or f"{w}s" in claim or (w.endswith("s") and w[:-1] in claim) for w in side)


def subjects(analysis: QuestionAnalysis) -> list[set[str]]:
    """What the question is about, as word sets: each compared side, the defined or versioned thing, or a
    how-to's task when it names a harm to avoid ("without SQL injection"); an answer sentence must name one of
    them. A plain how-to's task is no such subject: the step that does it is often in the documents' words,
    naming none of the user's ("set the holiday mode" for "stop the pipes freezing"), and the answer's
    closeness in meaning judges it. An open or why question names no one thing every part is about."""
    if analysis.type in ("comparison", "definition", "version") and analysis.entities:
        sides = analysis.entities[:2] if analysis.type == "comparison" else analysis.entities[:1]
        found = [word_set(side) for side in sides]
    elif analysis.type == "how_to" and (warns(analysis) or analysis.concern):
        found = [word_set(f"{analysis.action} {analysis.concern}")]
    else:
        found = []
    return [side for side in found if side]


_LEAD_API = re.compile(r"^`(?:[a-z]+ )*@?([\w.:-]+)")
"""A claim that opens with a code span names what it documents: the name after any lower-case
keywords ("`class enum.ReprEnum`" -> enum.ReprEnum), whatever language the keywords are from."""


def about_another_api(claim: str, about: list[set[str]]) -> bool:
    """Whether a claim opening with an API's signature documents an API the question does not name:
    "`class enum.ReprEnum` ... uses the repr() of Enum" is about ReprEnum, not about __str__ and
    __repr__. A signature sharing a part with what is asked ("asyncio.wait_for" for asyncio, or
    "contextmanager.__enter__" for a context manager) is kept."""
    match = _LEAD_API.match(claim)
    if match is None or not about:
        return False
    parts = {p.lower() for p in match.group(1).split(".") if p}
    joined = any(len(w) >= 4 and w in part for side in about for w in side for part in parts)  # contextmanager
    return not joined and not any(names(side, parts) for side in about)


_CODE_NAME = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|\b[A-Za-z_]\w*(?=\(\))|\b[a-z]+_[a-z_]+\b")


def code_names(question: str) -> set[str]:
    """The parts of the code names a question spells out ("kiln.vent()" -> kiln, vent):
    an answer to it names one of them, whatever kind of question it is."""
    names = [name.split(".") for name in _CODE_NAME.findall(question)]
    return {part.lower() for parts in names if max(map(len, parts)) > 1 for part in parts if part}  # not "e.g"


def says_something(claim: str) -> bool:
    """A statement in words, whole: not a bare signature, not a fragment with an open parenthesis."""
    prose = re.sub(r"`[^`]*`", " ", claim)
    return len(re.findall(r"[A-Za-z]{2,}", prose)) >= MIN_WORDS and claim.count("(") <= claim.count(")")


CONTRAST_WORDS = 50
"""Words beyond the answer's budget a contrast's other half may take: half an answer misleads."""


def with_contrasts(chosen: list[str], findings: list[str]) -> list[str]:
    """The chosen lines, each followed by the finding that states the same about another subject:
    "A bisque firing hardens ... at cone 04" leads, and "A glaze firing hardens ... at cone 6" is
    the other half of that answer, wherever the plan put it."""
    out: list[str] = []
    words = sum(len(line.split()) for line in chosen)
    for line in chosen:
        if line in out:
            continue
        out.append(line)
        claim = citations.CITE.sub("", line).strip()
        for other in findings:
            extra = 0 if other in chosen else len(other.split())
            if other in out or words + extra > ANSWER_WORDS + CONTRAST_WORDS:
                continue
            if contrasts(claim, citations.CITE.sub("", other).strip()):
                out.append(other)  # a chosen other half moves up next to its pair
                words += extra
                break
    return out


LEAD_BONUS = 0.5
"""For the finding that is the kind of answer the question wants: the code of a how-to, the
defining sentence of a concept. It opens the answer."""
_DEFINES = re.compile(r"^\W*(?:\w+\W+){0,5}?(?:is|are|means|refers to|denotes)\s+(?!\w+ed\b)", re.I)
"""A sentence saying what its subject is ("A cone pack is a row of cones"); "is" before a past participle
is the passive voice ("Cone packs are placed ..."), which says what is done with it."""


def leads(analysis: QuestionAnalysis, text: str, code: str | None, about: list[set[str]]) -> bool:
    """Whether a finding is what the answer should open with, by the kind of question: the command or
    code for a how-to, the sentence that says what the asked thing is for a concept."""
    if analysis.type == "how_to":  # code that does the task: it names at least half of the task's terms
        task = terms(analysis.action)
        return (bool(code) or "`" in text) and len(task & terms(text)) * 2 >= len(task) > 0
    if analysis.type == "definition" and about:
        first = set(opening(text))
        return bool(_DEFINES.match(text)) and any(terms(" ".join(side)) & first for side in about)
    return False


def _plain(line: str) -> str:
    return citations.CITE.sub("", line).strip()


def spoken(finding: StatedFinding) -> str:
    """A finding as the answer may state it: without a leading field list, whose labels and values say
    nothing on their own ("" when the finding is nothing but fields)."""
    rest = without_fields(finding.claim)
    if rest == finding.claim.strip():
        return finding.cited
    return f"{rest} " + "".join(f"[{n}]" for n in finding.citations) if rest else ""


def answer_text(request: AnswerRequest) -> str:
    """The direct answer: the best finding of each sub-question in plan order, warnings first for a question about
    risk (a yes/no question's warnings count as much, and lead when they answer it best).

    Taking one finding per sub-question makes the answer cover the question's parts (both sides
    of a comparison, the function and its caveat) instead of three restatements of one point.
    """
    analysis = request.analysis
    focus = analysis.type + (", safety" if warns(analysis) else "")
    key = terms(" ".join(request.key_terms)) or terms(request.question)
    # a finding opening with a field list ("Default: true Type: Boolean If set ...") is stated from its sentence
    stated = {f.cited: spoken(f) for _, findings in request.groups for f in findings}
    groups = [[stated[f.cited] for f in findings if stated[f.cited]] for _, findings in request.groups]
    codes = {stated[f.cited]: f.code for _, findings in request.groups for f in findings}
    asked = [terms(text) for text, _ in request.groups]
    findings = [f for group in groups for f in group]
    if not findings:
        whole = [f.cited for _, found in request.groups for f in found]
        return whole[0] if whole else "The corpus holds no evidence that answers this question."
    about = subjects(analysis)
    spelled = code_names(request.question)
    near = {stated[f.cited]: f.closeness for _, found in request.groups for f in found if f.closeness is not None}
    # each part opens with the finding the findings step ranked first and, when the embedder measured them,
    # the one closest in meaning to the question (a concept's answer is its defining line: see ``leads``)
    firsts = [group[0] for group in groups if group]
    closest = [
        max((f for f in group if f in near), key=near.__getitem__, default=group[0]) for group in groups if group
    ]
    closest = firsts if analysis.type == "definition" else closest
    openers = set(firsts) | set(closest)

    # two tests by the words a line names stand in for meaning when the embedder measured nothing: with its
    # closeness measured, a warning that names neither ("Opening the lid above 200 degrees cracks the pots")
    # may answer "why is kiln.vent() risky?", and a signature's name decides nothing on its own
    def score(line: str, group: int) -> float:
        text = citations.CITE.sub("", line).strip()
        claim, said = terms(text), word_set(text)
        if (about and not any(names(side, said) for side in about)) or not says_something(text):
            return 0.0  # about something else, or no statement at all: it stays under its sub-question
        if not is_sentence(text):
            return 0.0  # a heading, a list item's fragment or a row of names: no sentence that answers
        if not near and about_another_api(text, about) and analysis.type != "how_to":
            return 0.0  # documents another API than the one asked about (a how-to names none: any may do it)
        if _DOES_IT.match(text):
            return 0.0  # "You can do it ..." does not say what it does; it stays under its sub-question
        if _OPTION_ENTRY.match(text) and not _ASKS_OPTIONS.search(request.question):
            return 0.0  # an option's entry of some tool; it stays under its sub-question
        if not near and spelled and not spelled & set(re.findall(r"[a-z0-9_]+", text.lower())):
            return 0.0  # a claim that names none of the code names the question spells out
        if "safety" in focus and "how_to" in focus and text.endswith(":") and not _PROTECTS.search(text):
            return 0.0  # a plain recipe ("How to extract an archive:") is no answer to doing it safely
        value = max(_share(key, claim), _share(asked[group], claim))
        value += ANSWER_FIRST_BONUS if line in openers else 0.0
        value += ANSWER_CLOSENESS_WEIGHT * near.get(line, 0.0)
        prose = re.sub(r"`[^`]*`", " ", text)  # `sqlite3.Warning` names a class; it warns about nothing
        if "safety" in focus and CAVEAT.search(prose) and value > 0:
            value += 0.5
            if _HARM.search(prose):
                value += 0.3  # "to avoid injection attacks" answers it; "never" alone may not
        kind = analysis.type
        if kind in ANSWER_CUES and kind != "comparison" and ANSWER_CUES[kind].search(line) and value > 0:
            value += 0.15
        if value > 0 and leads(analysis, text, codes.get(line), about):
            value += LEAD_BONUS
        if len(about) > 1 and all(names(side, said) for side in about):
            value += BOTH_SIDES_BONUS
        return value

    ranked = sorted(
        ((score(line, gi), -gi, -li, line) for gi, group in enumerate(groups) for li, line in enumerate(group)),
        reverse=True,
    )
    eligible = [r for r in ranked if r[0] >= ANSWER_MIN_SHARE] or [r for r in ranked[:1] if r[0] > 0]
    if not eligible:  # nothing answers well: the first finding written as a sentence, the reader's best guess
        return next((line for line in findings if is_sentence(_plain(line))), findings[0])
    chosen: list[str] = []
    used_groups: set[int] = set()
    words = 0
    # the best finding of each part the reader asked, in the question's order (so the word budget never
    # leaves out a part for another's second point), then the best left
    first_round = sorted(eligible, key=lambda r: (-r[1], -r[0]))
    for _round in range(2):
        for value, neg_group, _, line in first_round if _round == 0 else eligible:
            if line in chosen or (_round == 0 and -neg_group in used_groups):
                continue
            if _round == 1 and value < ANSWER_MORE_SHARE:
                continue  # beyond the first parts' best findings, only a strong match is worth leading with
            if len(chosen) >= ANSWER_SENTENCES or (chosen and words + len(line.split()) > ANSWER_WORDS):
                break
            chosen.append(line)
            used_groups.add(-neg_group)
            words += len(line.split())
    # each part's line the findings step ranked first, with its passages in view, is said too when it answers
    # well enough, beyond the word budget: the closest in meaning and it disagree, and either may be the answer
    value_of = {line: value for value, _, _, line in ranked}
    chosen += [line for line in firsts if line not in chosen and value_of[line] >= ANSWER_MIN_SHARE]
    # the line closest in meaning opens its part (the first part's, even if the word budget left it out),
    # then the part's others in the findings step's order
    group_of = {line: gi for gi, group in enumerate(groups) for line in group}
    lead = next((line for line in closest if any(group_of[c] == group_of[line] for c in chosen)), None)
    if lead in near and lead not in chosen and any(r[3] == lead for r in eligible):
        chosen.append(lead)
    # parts in the question's order, each opened by its best line (the kind of answer asked, close in meaning)
    chosen.sort(key=lambda line: (group_of[line], -value_of.get(line, 0.0), findings.index(line)))
    chosen = with_contrasts(chosen, findings)
    if analysis.safety:  # a yes/no question opens with its best line, which its caveat may be
        chosen.sort(key=lambda line: (not _HARM.search(line), not CAVEAT.search(line)))
    return " ".join(chosen)
