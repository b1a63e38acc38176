"""A report a careful reader trusts: every part answered with a citation or named as a gap, the
answer first, and a provider that gets the engine's data rather than its prose.

The documents are small made-up manuals (heat pumps, a pottery kiln), never a bench's text.
"""

from __future__ import annotations

import re
from pathlib import Path

import aiohttp

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.models import ResearchState
from deepr_mcp.research.providers.base import (
    AnswerRequest,
    Completion,
    FindingsRequest,
    PlanRequest,
    Request,
    StatedFinding,
)
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.research.providers.local_answer import answer_text
from deepr_mcp.research.providers.openai_compat import OpenAIProvider
from deepr_mcp.research.reading.analysis import analyse
from deepr_mcp.research.reading.terms import terms
from tests.fake_llm import fake_llm
from tests.heat_pumps import HEAT_PUMPS, TWO_PARTS

NOISY = (
    HEAT_PUMPS
    + """
## Noise

The outdoor unit's fan and compressor give a noise level of about 45 dB at three metres, less than a
dishwasher; night modes lower the fan speed further.
"""
)


def corpus_of(tmp_path: Path, text: str) -> Corpus:
    (tmp_path / "heat-pumps.md").write_text(text)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "heat-pumps.md")
    return corpus


def section(report: str, name: str) -> str:
    return report.split(f"## {name}", 1)[1].split("\n## ", 1)[0] if f"## {name}" in report else ""


def assert_honest(state: ResearchState) -> None:
    """Every part is cited or a gap; no 'answered' without a citation; no Gaps line the Answer contradicts."""
    report = state.report or ""
    gapped = " ".join(g.sub_question for g in state.gaps)
    for sq in state.sub_questions:
        cited = bool(sq.findings) or bool(sq.covered_by)
        assert cited or sq.text in gapped, sq
    for line in report.splitlines():
        if line.startswith("_Answered above"):
            assert re.search(r"\[\d+\]", line), line
    answer = terms(section(report, "Answer").split("_The documents say nothing")[0])
    for gap in state.gaps:
        for phrase in gap.missing:
            assert not terms(phrase) <= answer, (phrase, section(report, "Answer"))


async def test_the_parts_the_documents_do_not_cover_are_gaps_in_plain_words(tmp_path: Path) -> None:
    state = await Engine(corpus_of(tmp_path, HEAT_PUMPS), LocalProvider()).run(new_state(TWO_PARTS))
    report = state.report or ""
    gaps = section(report, "Gaps")
    assert "The documents say nothing about gas boilers" in gaps
    assert "The documents say nothing about noise level" in gaps
    noise = next(sq for sq in state.sub_questions if "noise" in sq.text)
    assert noise.status == "unanswered" and not noise.findings  # efficiency facts are not listed under noise
    assert "COP" in report and "[1]" in section(report, "Answer")
    assert_honest(state)


async def test_a_part_answered_in_a_passage_cited_elsewhere_is_no_gap(tmp_path: Path) -> None:
    question = "How efficient are heat pumps in cold climates, and what is the noise level of heat pumps?"
    state = await Engine(corpus_of(tmp_path, NOISY), LocalProvider()).run(new_state(question))
    assert "45 dB" in (state.report or "")
    assert not any("noise" in m for g in state.gaps for m in g.missing)
    assert_honest(state)


def answer(question: str, groups: list[tuple[str, list[tuple[str, str | None]]]]) -> str:
    stated = tuple(
        (text, tuple(StatedFinding(claim, (n,), code) for n, (claim, code) in enumerate(found, 1)))
        for text, found in groups
    )
    return answer_text(AnswerRequest(question, analyse(question), stated, ()))


def test_a_how_to_answer_opens_with_the_command() -> None:
    question = "How do I start a cone 6 firing on the kiln controller?"
    out = answer(
        question,
        [
            (
                question,
                [
                    ("The kiln controller shows the cone 6 firing temperature on its display.", None),
                    ("To start a cone 6 firing, run the controller command:", "kilnctl start --program cone6"),
                ],
            )
        ],
    )
    assert out.startswith("To start a cone 6 firing"), out


def test_a_safety_answer_opens_with_the_warning() -> None:
    question = "Is it safe to open the kiln lid during a cone 6 firing?"
    out = answer(
        question,
        [
            (
                question,
                [
                    ("The kiln lid has a peephole for watching the cone 6 firing.", None),
                    ("Warning: never open the kiln lid during a firing; the shelves crack from thermal shock.", None),
                ],
            )
        ],
    )
    assert out.startswith("Warning: never open the kiln lid"), out


def test_a_comparison_answer_states_both_sides() -> None:
    question = "What are the differences between stoneware glaze and earthenware glaze?"
    out = answer(
        question,
        [
            (question, [("Glazes are applied by dipping or brushing before the glaze firing.", None)]),
            ("What is stoneware glaze?", [("Stoneware glaze matures at cone 6 and becomes watertight.", None)]),
            ("What is earthenware glaze?", [("Earthenware glaze matures at cone 04 and stays porous.", None)]),
        ],
    )
    assert "Stoneware glaze matures" in out and "Earthenware glaze matures" in out, out


def test_a_concept_answer_opens_with_the_definition() -> None:
    question = "What is a cone pack?"
    out = answer(
        question,
        [
            (
                question,
                [
                    ("Cone packs are placed where the peephole shows them during the firing.", None),
                    ("A cone pack is a row of pyrometric cones set in clay that bend at known temperatures.", None),
                ],
            )
        ],
    )
    assert out.startswith("A cone pack is a row of pyrometric cones"), out


class Recording(LocalProvider):
    """The real local provider, keeping each request it was handed."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[Request] = []

    async def research(self, request: Request, *, max_tokens: int = 1024) -> Completion:
        self.requests.append(request)
        return await super().research(request, max_tokens=max_tokens)


async def test_the_local_provider_gets_the_engines_data(tmp_path: Path) -> None:
    corpus = corpus_of(tmp_path, HEAT_PUMPS)
    provider = Recording()
    state = await Engine(corpus, provider).run(new_state(TWO_PARTS))
    kinds = [type(r) for r in provider.requests]
    assert kinds[0] is PlanRequest and kinds[-1] is AnswerRequest
    assert kinds[1:-1] == [FindingsRequest] * len(state.sub_questions)
    plan = provider.requests[0]
    assert isinstance(plan, PlanRequest) and plan.analysis == state.analysis and len(plan.parts) > 1
    for request in provider.requests[1:-1]:
        assert isinstance(request, FindingsRequest) and request.analysis.type == "comparison"
        for passage in request.passages:  # ids are the corpus's own, the text its stored text
            assert corpus.passage(passage.id).text == passage.text
    final = provider.requests[-1]
    assert isinstance(final, AnswerRequest)
    assert [text for text, _ in final.groups] == [sq.text for sq in state.sub_questions]


async def test_an_llm_provider_renders_the_request_itself(tmp_path: Path) -> None:
    corpus = corpus_of(tmp_path, HEAT_PUMPS)
    question = "How do I read the coefficient of performance of a heat pump?"
    async with fake_llm() as llm, aiohttp.ClientSession() as session:
        model = OpenAIProvider(session, base_url=f"{llm.url}/v1", api_key="sk-test", model="gpt-4o", max_retries=0)
        state = await Engine(corpus, model).run(new_state(question))
    prompts_sent = [m["content"] for r in llm.requests for m in r["messages"]]
    plan = next(p for p in prompts_sent if p.startswith("TASK: plan"))
    assert "Never add a sub-question the asker did not ask" in plan
    findings = next(p for p in prompts_sent if p.startswith("Question:") and "Passages:" in p)
    assert "Sub-question: " + state.sub_questions[0].text in findings and "coefficient of performance" in findings
    summary = next(p for p in prompts_sent if p.startswith("TASK: summary"))
    assert "Lead with the command or code" in summary  # what kind of answer a how-to wants
    assert state.report and "## Answer" in state.report


def test_a_gaps_phrase_never_runs_across_a_sentence_or_a_comma() -> None:
    # "a kiln log. Which glaze" named as one thing the documents say nothing about reads as nonsense
    from deepr_mcp.research.synthesis.coverage import phrases

    question = "I keep a kiln log. Which glaze suits a log of slow firings?"
    assert phrases(question, terms("kiln log glaze")) == ["kiln log", "glaze", "log"]
    assert phrases("compared with gas boilers, and what is the noise level?", terms("gas boilers noise level")) == [
        "gas boilers",
        "noise level",
    ]
    assert phrases("How do I call kiln.vent() for this?", terms("kiln.vent")) == ["kiln.vent"]


async def test_a_gaps_line_names_what_is_missing_in_the_words_of_one_sentence(tmp_path: Path) -> None:
    from tests.heat_pumps import HEAT_PUMPS

    (tmp_path / "heat-pumps.md").write_text(HEAT_PUMPS)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "heat-pumps.md")
    state = await Engine(corpus, LocalProvider()).run(
        new_state("Our cellar smells of mould. How loud is a heat pump's fan at night?")
    )
    report = state.report or ""
    assert "## Gaps" in report
    gaps = report.split("## Gaps", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"say nothing about (.+?) \(asked", gaps)
    assert named and not any(re.search(r"[.?!]\s", phrase) for phrase in named)


def test_a_gaps_line_never_calls_unsaid_what_a_passage_shown_near_another_part_writes() -> None:
    # neither part is answered; the passage shown near the second writes "formula": "the documents say nothing
    # about formula" under the first would be false on the same page
    from deepr_mcp.research.models import Finding, SubQuestion
    from deepr_mcp.research.synthesis.report import beliefs_and_gaps

    glaze = SubQuestion(id="s1", text="Which firing curve does the kiln use for a glaze formula?", status="unanswered")
    glaze.missing = ["glaze formula", "curve"]
    cones = SubQuestion(id="s2", text="How many cones can the formula take?", status="unanswered")
    near = Finding(claim="Each glaze formula is mixed by weight before firing.", passage_ids=["p1"], confidence=0.3)
    cones.near = [near]
    state = ResearchState(question="Which curve? How many cones?", sub_questions=[glaze, cones])
    _, gaps = beliefs_and_gaps(state)
    glaze_gap = next(g for g in gaps if g.sub_question == glaze.text)
    assert glaze_gap.missing == ["curve"]  # no passage shown writes it: still named
    assert "glaze formula" not in glaze_gap.reason
