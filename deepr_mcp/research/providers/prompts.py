"""The three prompts every provider answers, and the parsers for their answers.

Each system message starts with a ``TASK:`` line, so the extractive local provider can do
the same job by rules that an LLM does by reading; the answer formats are plain lines that
both produce and the engine parses the same way.
"""

from __future__ import annotations

import re

from deepr_mcp.research.providers.base import Message
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


def plan_messages(question: str, max_questions: int) -> list[Message]:
    system = (
        f"TASK: {TASK_PLAN}\n"
        f"Decompose the research question into at most {max_questions} focused sub-questions that can be "
        "answered from documents. Write one sub-question per line and nothing else."
    )
    return [Message("system", system), Message("user", question)]


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
) -> list[Message]:
    """``passages`` are ``(number, location, text)``; the location (source and heading) is context.

    ``known`` are facts already reported for other sub-questions: the answer must add to them.
    """
    system = (
        f"TASK: {TASK_FINDINGS}\n"
        "Using only the numbered passages, write each fact that answers the sub-question (within the main "
        "question) on its own line as '- <claim> [n]', citing only the passage numbers that state it. Quote or "
        "closely paraphrase the passage; never add facts the passages do not state. When a passage's code "
        "example shows the answer, put that code right after the claim as a fenced block copied exactly. "
        "When the focus is safety, state the passages' warnings and caveats first. Never repeat a fact, "
        "including the already known facts listed. "
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
    system = (
        f"TASK: {TASK_SUMMARY}\n"
        "Answer the question directly in two to five sentences, from the findings only, keeping their [n] "
        "citation markers on every sentence. Lead with what the reader must do or know; when the focus is "
        "safety, lead with the warning. No preamble, no facts the findings do not state."
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
