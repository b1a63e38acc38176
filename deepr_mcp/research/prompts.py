"""The three prompts every provider answers, and the parsers for their answers.

Each system message starts with a ``TASK:`` line, so the extractive local provider can do
the same job by rules that an LLM does by reading; the answer formats are plain lines that
both produce and the engine parses the same way.
"""

from __future__ import annotations

import re

from deepr_mcp.research.providers.base import Message

TASK_PLAN = "plan"
TASK_FINDINGS = "findings"
TASK_SUMMARY = "summary"
NO_EVIDENCE = "NO EVIDENCE"

_CITE = re.compile(r"\[(\d+)\]")
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


def findings_messages(sub_question: str, passages: list[tuple[int, str, str]]) -> list[Message]:
    """``passages`` are ``(number, location, text)``; the location (a heading path) is context."""
    system = (
        f"TASK: {TASK_FINDINGS}\n"
        "Using only the numbered passages, write each fact that answers the sub-question on its own line as "
        "'- <claim> [n]', citing the passage numbers that state it. Quote or closely paraphrase the passage. "
        f"If the passages do not answer the sub-question, write only '{NO_EVIDENCE}'."
    )
    body = "\n\n".join(f"[{n}] (from: {location or 'untitled'})\n{text}" for n, location, text in passages)
    return [Message("system", system), Message("user", f"Sub-question: {sub_question}\n\nPassages:\n{body}")]


def summary_messages(question: str, findings: list[str]) -> list[Message]:
    system = (
        f"TASK: {TASK_SUMMARY}\n"
        "Write a summary of two to four sentences that answers the question from the findings only, "
        "keeping their [n] citation markers. No preamble."
    )
    body = "\n".join(f"- {f}" for f in findings)
    return [Message("system", system), Message("user", f"Question: {question}\n\nFindings:\n{body}")]


def parse_lines(text: str) -> list[str]:
    """Non-empty answer lines without bullets or numbering."""
    return [line for raw in text.splitlines() if (line := _BULLET.sub("", raw).strip())]


def parse_findings(text: str) -> list[tuple[str, list[int]]]:
    """``(claim, [citation numbers])`` per line; lines without a citation are dropped."""
    if text.strip().upper().startswith(NO_EVIDENCE):
        return []
    out = []
    for line in parse_lines(text):
        numbers = [int(n) for n in _CITE.findall(line)]
        claim = _CITE.sub("", line).strip().rstrip(" ,;")
        if numbers and claim:
            out.append((claim, numbers))
    return out


def citations_in(text: str) -> list[int]:
    return [int(n) for n in _CITE.findall(text)]


def strip_unknown_citations(text: str, known: set[int]) -> str:
    """Remove ``[n]`` markers that resolve to no passage, so every citation in a report is real."""
    return _CITE.sub(lambda m: m.group(0) if int(m.group(1)) in known else "", text)
