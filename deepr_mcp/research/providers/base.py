"""The one seam every model provider sits behind.

The engine hands a provider a typed request (the question, its analysis, the sub-question, the
numbered passages with their ids, what kind of answer is wanted) and calls ``research``; a chat
model renders that to a prompt itself (``providers/chat.py``), the extractive local provider
reads the data directly, so nothing ever parses the engine's prompt back. The ``Usage`` a
completion returns is what the pricing table turns into dollars.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from deepr_mcp.research.reading.analysis import QuestionAnalysis

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    provider: str = ""


@dataclass(frozen=True, slots=True)
class SourcePassage:
    """A passage as a provider sees it: the number a claim cites, its stored id, where it is from."""

    number: int
    id: str
    location: str
    text: str


@dataclass(frozen=True, slots=True)
class StatedFinding:
    """A finding already checked against its passages, with the citation numbers of the report."""

    claim: str
    citations: tuple[int, ...]
    code: str | None = None
    closeness: float | None = None
    """The embedder's cosine of the claim's closest sentence to the question (None without one): what
    the answer opens with (``synthesis/closeness.py``)."""

    @property
    def cited(self) -> str:
        return f"{self.claim} " + "".join(f"[{n}]" for n in self.citations)


@dataclass(frozen=True, slots=True)
class PlanRequest:
    """Split the question into the parts it has (``parts``: the engine's own split, a floor)."""

    question: str
    analysis: QuestionAnalysis
    parts: tuple[str, ...]
    max_sub_questions: int


@dataclass(frozen=True, slots=True)
class FindingsRequest:
    """State what the passages say that answers one sub-question, citing passage numbers."""

    question: str
    analysis: QuestionAnalysis
    sub_question: str
    passages: tuple[SourcePassage, ...]
    key_terms: tuple[str, ...] = ()
    """The question's words (as written) that an answer holds."""
    related: tuple[str, ...] = ()
    """Words the corpus uses near the question's (relevance feedback)."""
    known: tuple[str, ...] = ()
    """Facts already reported under other sub-questions: the answer adds to them."""
    safety: bool = False
    """Warnings lead for this sub-question."""
    max_findings: int = 0
    """How many findings this part may report (0: the provider's own default)."""
    part: QuestionAnalysis | None = None
    """This part read on its own when the question joins several asks ("..., and how are faults
    repaired?" is a how-to inside a why question); None when the part is the question."""
    other_parts: tuple[str, ...] = ()
    """The question's other parts: a sentence that speaks to one of them rather than to this part
    belongs under it."""
    meant: tuple[int, ...] = ()
    """Numbers of the passages found by meaning: they answer the sub-question though they may share
    none of its words."""
    context: str = ""
    """The clause before this part when the part refers back to it ("how hot does that shelf get?"):
    what the part means needs it (``reading.analysis.context_of``)."""


@dataclass(frozen=True, slots=True)
class AnswerRequest:
    """Answer the question directly from the checked findings, grouped by sub-question in plan order."""

    question: str
    analysis: QuestionAnalysis
    groups: tuple[tuple[str, tuple[StatedFinding, ...]], ...]
    key_terms: tuple[str, ...] = ()


Request = PlanRequest | FindingsRequest | AnswerRequest


@runtime_checkable
class Provider(Protocol):
    """A model the engine asks. ``name`` is the provider id (``local``, ``openai``, ``anthropic``).

    ``research`` answers a typed request in the plain line formats ``prompts.py`` parses: one
    sub-question per line for a plan, ``- claim [n]`` lines (with fenced code) for findings,
    cited sentences for the answer.
    """

    name: str
    model: str

    async def research(self, request: Request, *, max_tokens: int = 1024) -> Completion: ...
