"""How a chat model is asked the engine's three requests, and the parsers for every provider's answers.

``messages_for`` renders a typed request (``providers/base.py``) to messages; only chat providers
call it, the local provider reads the request's data. Each system message starts with a ``TASK:``
line naming the request. The answer formats are plain lines that every provider produces and the
engine parses the same way.
"""

from __future__ import annotations

import re

from deepr_mcp.research.providers.base import (
    AnswerRequest,
    FindingsRequest,
    Message,
    PlanRequest,
    Request,
    StatedFinding,
)
from deepr_mcp.research.synthesis.citations import CITE

TASK_PLAN = "plan"
TASK_FINDINGS = "findings"
TASK_SUMMARY = "summary"
NO_EVIDENCE = "NO EVIDENCE"

_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")


def task_of(messages: list[Message]) -> str | None:
    for message in messages:
        if message.role == "system" and message.content.startswith("TASK:"):
            return message.content.split("\n", 1)[0].removeprefix("TASK:").strip()
    return None


LEADS = {
    "how_to": "Lead with the command or code that does it, quoted from the findings.",
    "comparison": "Say what the findings state about each side compared; name a side they say nothing about.",
    "definition": "Lead with the sentence that says what it is.",
    "why": "Lead with the cause the findings state.",
    "version": "Lead with the version the findings name.",
    "general": "Lead with what answers the question.",
}
"""What the answer opens with, by the kind of question (``QuestionAnalysis.type``)."""


def messages_for(request: Request) -> list[Message]:
    """The chat messages for a typed request (what an LLM provider sends)."""
    if isinstance(request, PlanRequest):
        return plan_messages(request.question, request.max_sub_questions, list(request.parts))
    if isinstance(request, FindingsRequest):
        kind = request.analysis.type + (", safety" if request.safety else "")
        return findings_messages(
            request.sub_question,
            [(p.number, p.location, p.text) for p in request.passages],
            question=request.question,
            focus=kind,
            key_terms=list(request.key_terms),
            related=list(request.related),
            known=list(request.known),
            max_findings=request.max_findings,
        )
    if isinstance(request, AnswerRequest):
        # each part's findings closest in meaning to the question first (``StatedFinding.closeness``): the
        # model is asked to lead with what answers, and reads its findings in that order
        groups = [(text, [f.cited for f in closest_first(findings)]) for text, findings in request.groups if findings]
        kind = request.analysis.type + (", safety" if request.analysis.safety else "")
        kind += ", yes/no" if request.analysis.whether else ""
        return summary_messages(request.question, groups, focus=kind, key_terms=list(request.key_terms))
    raise TypeError(f"not a research request: {type(request).__name__}")


def closest_first(findings: tuple[StatedFinding, ...]) -> list[StatedFinding]:
    """Findings by closeness to the question, the unmeasured after the measured in their own order."""
    return sorted(findings, key=lambda f: -f.closeness if f.closeness is not None else float("inf"))


SEARCH_PREFIX = "SEARCH:"
MAX_PLAN_SEARCHES = 4
"""Searches a model may add to a plan: phrasings in the documentation's words, searched beside the question."""


def parse_plan(text: str) -> tuple[list[str], list[str]]:
    """``(sub-questions, searches)`` of a plan answer; a line opening ``SEARCH:`` is a search."""
    parts: list[str] = []
    searches: list[str] = []
    for line in parse_lines(text):
        if line[: len(SEARCH_PREFIX)].upper() == SEARCH_PREFIX:
            search = " ".join(line[len(SEARCH_PREFIX) :].split())[:300]
            if len(search) >= 2 and search.lower() not in {s.lower() for s in searches}:
                searches.append(search)
        else:
            parts.append(line)
    return parts, searches[:MAX_PLAN_SEARCHES]


def plan_messages(question: str, max_questions: int, parts: list[str] | None = None) -> list[Message]:
    system = (
        f"TASK: {TASK_PLAN}\n"
        f"Split the research question into the parts it really has (at most {max_questions}): two things "
        "compared, or several questions joined. A question with one part stays one line. Never add a "
        "sub-question the asker did not ask (which functions, which options, what example). Write one "
        "sub-question per line. Then, since users and documentation word things differently, write up to "
        f"{MAX_PLAN_SEARCHES} lines starting '{SEARCH_PREFIX} ', each a search for the question in the words its "
        "documentation most likely uses (the names of commands, options, functions, settings or terms of art), "
        "not the user's words again. Nothing else."
    )
    user = question
    if parts and len(parts) > 1:
        user += "\n\nIts parts as read so far:\n" + "\n".join(parts)
    return [Message("system", system), Message("user", user)]


def _brief(question: str, focus: str, key_terms: list[str], related: list[str]) -> str:
    lines = [f"Question: {question}"]
    if focus:
        lines.append(f"Focus: {focus}")
    if key_terms:
        lines.append(f"Key terms: {', '.join(key_terms)}")
    if related:
        lines.append(f"Related terms: {', '.join(related)}")
    return "\n".join(lines)


def findings_messages(
    sub_question: str,
    passages: list[tuple[int, str, str]],
    *,
    question: str = "",
    focus: str = "",
    key_terms: list[str] | None = None,
    related: list[str] | None = None,
    known: list[str] | None = None,
    max_findings: int = 0,
) -> list[Message]:
    """``passages`` are ``(number, location, text)``; the location (source and heading) is context.

    ``known`` are facts already reported for other sub-questions: the answer must add to them.
    ``max_findings`` (0: no cap) is how many facts the model may write; the engine keeps no more.
    """
    cap = (
        f"Write at most {max_findings} facts, the one that best answers the sub-question first. "
        if max_findings
        else ""
    )
    system = (
        f"TASK: {TASK_FINDINGS}\n"
        "Using only the numbered passages, write each fact that answers the sub-question (within the main "
        "question) on its own line as '- <claim> [n]', citing only the passage numbers that state it. Quote or "
        "closely paraphrase the passage; never add facts the passages do not state. When a passage's code "
        "example shows the answer, put that code right after the claim as a fenced block copied exactly. "
        "When the focus is safety, state the passages' warnings and caveats first. Never repeat a fact, "
        f"including the already known facts listed. {cap}"
        f"If the passages do not answer the sub-question, write only '{NO_EVIDENCE}'."
    )
    body = "\n\n".join(f"[{n}] (from: {location or 'untitled'})\n{text}" for n, location, text in passages)
    brief = _brief(question or sub_question, focus, key_terms or [], related or [])
    already = "".join(f"\nKnown: {fact}" for fact in known or [])
    user = f"{brief}\nSub-question: {sub_question}{already}\n\nPassages:\n{body}"
    return [Message("system", system), Message("user", user)]


def summary_messages(
    question: str,
    groups: list[tuple[str, list[str]]],
    *,
    focus: str = "",
    key_terms: list[str] | None = None,
) -> list[Message]:
    """``groups`` are ``(sub-question, [finding with its [n] markers])`` in plan order."""
    kind = focus.split(",")[0].strip()
    system = (
        f"TASK: {TASK_SUMMARY}\n"
        "Answer the question directly in two to five sentences, from the findings only, keeping their [n] "
        f"citation markers on every sentence. {LEADS.get(kind, LEADS['general'])} When the focus is safety, "
        "lead with the warning; for a yes/no question, with what the findings say about whether it holds, then its "
        "caveats. Leave out findings about something else that only share words with the "
        "question. No preamble, no facts the findings do not state."
    )
    body = "\n".join(
        f"Sub-question: {sub_question}\n" + "\n".join(f"- {f}" for f in findings) for sub_question, findings in groups
    )
    brief = _brief(question, focus, key_terms or [], [])
    return [Message("system", system), Message("user", f"{brief}\n\nFindings:\n{body}")]


def parse_lines(text: str) -> list[str]:
    """Non-empty answer lines without bullets or numbering."""
    return [line for raw in text.splitlines() if (line := _BULLET.sub("", raw).strip())]


def parse_findings(text: str) -> list[tuple[str, list[int], str | None]]:
    """``(claim, [citation numbers], code or None)`` per claim line; lines without a citation are dropped.

    A fenced code block right after a claim line belongs to that claim.
    """
    if text.strip().upper().startswith(NO_EVIDENCE):
        return []
    out: list[tuple[str, list[int], str | None]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        raw = lines[i]
        if raw.strip().startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith("```"):
                j += 1
            indent = len(raw) - len(raw.lstrip())
            code = "\n".join(line[indent:] if line[:indent].isspace() else line for line in lines[i + 1 : j])
            if out and out[-1][2] is None and code.strip():
                out[-1] = (out[-1][0], out[-1][1], code)
            i = j + 1
            continue
        line = _BULLET.sub("", raw).strip()
        numbers = [int(n) for n in CITE.findall(line)]
        claim = CITE.sub("", line).strip().rstrip(" ,;")
        if line and numbers and claim:
            out.append((claim, numbers, None))
        i += 1
    return out
