"""The embedded default: extractive research with no network, no key, no cost.

It answers the engine's three prompts by rules: a question is decomposed by its clauses and
standard facets; findings are the passage sentences that best cover the sub-question's terms;
the summary strings together the strongest findings. Deterministic, so a resumed run gives
the same report as an uninterrupted one.
"""

from __future__ import annotations

import re

from deepr_mcp.research import prompts
from deepr_mcp.research.providers.base import Completion, Message, Usage
from deepr_mcp.research.terms import coverage, terms

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_PASSAGE = re.compile(r"^\[(\d+)\] \(from: (.*?)\)\n(.*?)(?=^\[\d+\] \(from:|\Z)", re.S | re.M)
_CLAUSE_SPLIT = re.compile(r"\s*(?:;|,?\s+and\s+(?=(?:how|what|why|when|where|who|which)\b))\s*", re.I)
_AUXILIARY = re.compile(
    r"^(?:how|what|why|when|where|who|which)\s+(?:did|do|does|is|are|was|were|has|have|had|can|could)\b", re.I
)
_TRAILING_TIME = re.compile(r"\s+(?:today|now|nowadays|currently|recently)$", re.I)
_LEADING = re.compile(
    r"^(?:how|what|why|when|where|who|which|whose|did|do|does|is|are|was|were|can|could|should|would|"
    r"will|has|have|had|the|a|an|of|in|on|to|for|about|tell me|explain|describe)\b\s*",
    re.I,
)

MIN_SENTENCE_CHARS = 25
MAX_FINDINGS = 3
MIN_SCORE = 0.4


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def topic_of(question: str) -> str:
    """The subject of a question: 'why did the 1858 cable fail' -> '1858 cable'.

    After an auxiliary ("did", "are") the last word is the main verb, so it is dropped.
    """
    topic = _TRAILING_TIME.sub("", question.strip().rstrip("?.! "))
    if _AUXILIARY.match(topic) and len(topic.split()) > 3:
        topic = topic.rsplit(" ", 1)[0]
    previous = None
    while previous != topic:
        previous, topic = topic, _LEADING.sub("", topic)
    return topic or question.strip().rstrip("?")


def decompose(question: str, limit: int) -> list[str]:
    """The question, its separate clauses, then standard facets of its topic."""
    question = " ".join(question.split())
    clauses = [c.strip().rstrip("?") for c in _CLAUSE_SPLIT.split(question.rstrip("?")) if c.strip()]
    topic = topic_of(clauses[0] if clauses else question)
    candidates = [question if question.endswith("?") else question + "?"]
    if len(clauses) > 1:
        candidates += [c[0].upper() + c[1:] + "?" for c in clauses]
    candidates += [
        f"What is the background of {topic}?",
        f"What key figures, dates and numbers describe {topic}?",
        f"What problems, risks or limitations are reported for {topic}?",
        f"What is the current state or outcome of {topic}?",
    ]
    seen: set[str] = set()
    out = []
    for candidate in candidates:
        key = candidate.lower()
        if key not in seen:
            seen.add(key)
            out.append(candidate)
    return out[:limit]


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if len(s.strip()) >= MIN_SENTENCE_CHARS]


def best_sentences(sub_question: str, passages: list[tuple[int, str, str]]) -> list[tuple[str, int, float]]:
    """Sentences ranked by the sub-question terms they and their passage (with its heading) contain.

    The passage's share matters because "It failed after three weeks" answers "why did the 1858
    cable fail" only through the passage and heading around it.
    """
    wanted = terms(sub_question)
    if not wanted:
        return []
    scored = []
    for number, location, text in passages:
        passage_cover = coverage(wanted, f"{location} {text}")
        for index, sentence in enumerate(sentences(text)):
            sentence_cover = coverage(wanted, sentence)
            if sentence_cover > 0 or passage_cover >= 0.75:
                score = 0.4 * sentence_cover + 0.6 * passage_cover
                scored.append((round(score, 6), -number, -index, sentence, number))
    scored.sort(reverse=True)
    out, seen = [], set()
    for score, _, _, sentence, number in scored:
        if sentence not in seen:
            seen.add(sentence)
            out.append((sentence, number, score))
    return out


class LocalProvider:
    """Implements the ``Provider`` protocol by rules over the prompt's own material."""

    name = "local"
    model = "extractive"

    async def complete(
        self, messages: list[Message], *, max_tokens: int = 1024, temperature: float = 0.0
    ) -> Completion:
        task = prompts.task_of(messages)
        user = next((m.content for m in messages if m.role == "user"), "")
        if task == prompts.TASK_PLAN:
            limit = int(re.search(r"at most (\d+)", messages[0].content).group(1))  # type: ignore[union-attr]
            text = "\n".join(decompose(user, limit))
        elif task == prompts.TASK_FINDINGS:
            text = self._findings(user)
        elif task == prompts.TASK_SUMMARY:
            text = self._summary(user)
        else:
            text = user
        usage = Usage(sum(estimate_tokens(m.content) for m in messages), estimate_tokens(text))
        return Completion(text=text, usage=usage, model=self.model, provider=self.name)

    @staticmethod
    def _findings(user: str) -> str:
        head, _, body = user.partition("\n\nPassages:\n")
        sub_question = head.removeprefix("Sub-question: ").strip()
        passages = [(int(n), location, text.strip()) for n, location, text in _PASSAGE.findall(body)]
        ranked = [r for r in best_sentences(sub_question, passages) if r[2] >= MIN_SCORE]
        if not ranked:
            return prompts.NO_EVIDENCE
        return "\n".join(f"- {sentence} [{number}]" for sentence, number, _ in ranked[:MAX_FINDINGS])

    @staticmethod
    def _summary(user: str) -> str:
        findings = [line[2:] for line in user.splitlines() if line.startswith("- ")]
        return " ".join(findings[:3]) if findings else "The corpus holds no evidence that answers this question."
