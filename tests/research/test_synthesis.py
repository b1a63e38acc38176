"""The report a reader keeps: answer first, no claim twice, every citation holds its claim.

The LLM drafts here come from a scripted provider, so the engine's checks can be shown on a
draft that is wrong in known ways: an invented claim, a right claim with the wrong number,
invented code and a fact repeated under two sub-questions.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.providers import prompts
from deepr_mcp.research.providers.base import Completion, Message, Usage
from deepr_mcp.research.providers.chat import ChatResearch
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.research.synthesis import citations
from deepr_mcp.research.synthesis.claims import support

DOC = """# cratebox

## Unpacking

Use Crate.unpack_all() to unpack every part of a crate:

```python
with cratebox.open("sample.crate") as crate:
    crate.unpack_all(bay="out")
```

## Security

Never unpack crates that strangers send before you look inside them. It is possible that parts land
outside the loading bay, e.g. parts that have loose lids that open in transit or straps with
two hooks "<>".
"""


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    (tmp_path / "cratebox.md").write_text(DOC)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "cratebox.md")
    return corpus


class DraftingModel(ChatResearch):
    """A chat model that drafts findings badly on purpose and answers the summary from them."""

    name, model = "scripted", "draft-1"

    async def complete(
        self, messages: list[Message], *, max_tokens: int = 1024, temperature: float = 0.0
    ) -> Completion:
        task = prompts.task_of(messages)
        user = messages[-1].content
        if task == prompts.TASK_PLAN:
            text = "How do you unpack a cargo crate?\nWhat does the documentation warn about?"
        elif task == prompts.TASK_FINDINGS:
            numbers = re.findall(r"^\[(\d+)\] \(from: [^)]*Security", user, re.M) or ["1"]
            wrong = "99"
            text = "\n".join(
                [
                    f"- Never unpack crates that strangers send before you look inside them. [{wrong}]",
                    f"- Cargo crates are always safe because the dock inspects every crate. [{numbers[0]}]",
                    f"- Use Crate.unpack_all() to unpack every part of a crate: [{numbers[0]}]",
                    "```",
                    "os.system('crowbar --force sample.crate')",
                    "```",
                ]
            )
        else:
            findings = [line[2:] for line in user.splitlines() if line.startswith("- ")]
            text = " ".join(findings[:2]) + " The dock guarantees that unpacking is always safe. [1]"
        return Completion(text=text, usage=Usage(10, 10), model=self.model, provider=self.name)


async def test_a_bad_draft_is_checked_claim_by_claim(corpus: Corpus) -> None:
    state = await Engine(corpus, DraftingModel()).run(new_state("How do I safely unpack a cargo crate?"))
    report = state.report or ""
    assert "always safe" not in report  # invented claims are dropped, in findings and in the answer
    assert "os.system" not in report  # code the passages do not hold is not quoted
    claims = [f for sq in state.sub_questions for f in sq.findings]
    assert [c.claim for c in claims].count(
        "Never unpack crates that strangers send before you look inside them."
    ) == 1  # the second sub-question's copy is merged into the first
    for finding in claims:
        assert finding.passage_ids, finding.claim  # the wrong number [99] was re-attributed
        for pid in finding.passage_ids:
            assert support(finding.claim, corpus.passage(pid).text) >= 0.8


async def test_local_report_answers_first_quotes_code_and_never_repeats(corpus: Corpus) -> None:
    state = await Engine(corpus, LocalProvider()).run(
        new_state("How do I safely unpack a cargo crate without losing parts?")
    )
    report = state.report or ""
    assert report.index("## Answer") < report.index("## Findings") < report.index("## Sources")
    answer = report.split("## Answer", 1)[1].split("## Findings", 1)[0]
    assert "Never unpack crates that strangers send" in answer  # the warning leads
    assert "```" in report and 'crate.unpack_all(bay="out")' in report  # code stays code, line breaks kept
    bullets = [re.sub(r"\s*\[\d+\]", "", line[2:]).strip() for line in report.splitlines() if line.startswith("- ")]
    sentences = [re.sub(r"\s*\[\d+\]", "", s).strip() for s in citations.split_sentences(answer.strip())]
    assert len(bullets + sentences) == len(set(bullets + sentences))  # no claim twice
    by_number = {c.number: c.passage_id for c in state.passages.values()}
    for line in report.splitlines():
        if line.startswith("- ") and (numbers := re.findall(r"\[(\d+)\]", line)):
            claim = re.sub(r"\s*\[\d+\]", "", line[2:])
            for n in numbers:
                assert support(claim, corpus.passage(by_number[int(n)]).text) >= 0.8, (claim, n)


def _findings(sub_question: str, passages: list[tuple[int, str, str]], focus: str, key: list[str]) -> str:
    """The local provider's findings for a request whose kind of answer is ``focus`` ("how_to, safety")."""
    from dataclasses import replace

    from deepr_mcp.research.providers.local import findings_text
    from tests.research.requests import findings_request

    request = findings_request(sub_question, passages, key_terms=key)
    kind = focus.split(",")[0].strip()
    analysis = request.analysis.model_copy(update={"type": kind, "safety": "safety" in focus})
    return findings_text(replace(request, analysis=analysis, safety="safety" in focus))


def test_a_warning_is_quoted_whole_and_never_glued_onto_the_sentence_before() -> None:
    text = (
        "Winding is alternatively known as balling or caking. Warning: The yarn swift is unsafe "
        "by design. Unwind only yarn you trust. It is possible to construct a knotted, snapping skein."
    )
    out = _findings(
        "Is it safe to unwind yarn from an unknown mill?",
        [(1, "swift.html, swift", text)],
        "how_to, safety",
        ["unwind", "yarn", "unknown"],
    )
    assert "- Warning: The yarn swift is unsafe by design. Unwind only yarn you trust. [1]" in out.splitlines()


def test_a_sentence_opening_with_it_takes_in_the_one_it_refers_to() -> None:
    text = "Controller 4.2 adds a new program for cooling inside larger kilns. It is known as the heron ramp."
    out = _findings("What is the heron ramp?", [(1, "changes.html, News", text)], "definition", ["heron"])
    assert "- Controller 4.2 adds a new program for cooling inside larger kilns. It is known as the heron" in out


def test_a_sentence_sharing_nothing_with_the_question_is_not_a_finding() -> None:
    passages = [
        (1, "swift.html, swift", "Never unwind yarn received from an unknown mill. It is a fire risk."),
        (2, "looms.html, Loom keys", "A loom key is a brass token like a cloakroom ticket."),
    ]
    question = "Is it safe to unwind yarn from an unknown mill?"
    out = _findings(question, passages, "how_to, safety", ["unwind", "unknown"])
    assert "[1]" in out and "loom key" not in out


def test_a_safety_answer_leads_with_the_warning_about_harm_not_any_never() -> None:
    question = "What are the risks when calling kiln.fire() with vent=False?"
    groups = [
        (
            question,
            [
                "Unlike some other firing functions, this implementation will never implicitly close the vent. [1]",
                "If the vent is closed explicitly via vent=False, the kiln room is no longer secure: carbon "
                "monoxide builds up unless every flue and damper is opened by hand in kiln.fire() calls. [1]",
            ],
        )
    ]
    from tests.research.test_answer import _answer

    assert _answer(question, groups, "general, safety", ["kiln", "vent"]).startswith("If the vent is closed explicitly")


def test_a_part_lists_as_many_findings_as_the_engine_allows_it() -> None:
    """A question planned as few parts may say more in each (``shares.findings_per_part``); a request
    with no cap gets the provider's own default."""
    from dataclasses import replace

    from deepr_mcp.research.providers.local import MAX_FINDINGS, findings_text
    from tests.research.requests import findings_request

    facts = [
        "the lid stays shut until the load is below 200 degrees",
        "a fan draws cool air through the lower vent",
        "three stages slow the fall near the quartz inversion",
        "the peephole plugs stay in during the first hour",
        "thresholds decide when each stage begins",
        "the elements pulse briefly to hold a slow ramp",
        "the log prints the temperature at every stage",
        "pots with thick feet are given a longer soak since model 442",
        "a pause button holds the current temperature",
        "turning the program off leaves manual cooling possible",
        "an alarm sounds before and after every stage",
    ]
    passages = [
        (n, f"controller.html, Cooling > Part {n}", f"The kiln controller cools the load: {fact}.")
        for n, fact in enumerate(facts, 1)
    ]
    key = ["kiln", "controller", "cools"]
    sub = "How does the kiln controller cool the load?"
    request = findings_request(sub, passages, key_terms=key)

    def listed(cap: int) -> int:
        return sum(line.startswith("- ") for line in findings_text(replace(request, max_findings=cap)).splitlines())

    assert listed(0) == MAX_FINDINGS < listed(8) == 8


KILN_RISK = "Is it safe to open the kiln lid while the glaze is still hot?"
KILN_PASSAGES = [
    (1, "kiln.md, Lid", "A hot glaze is glossy while the kiln lid is open. The glaze hardens as the lid closes."),
    (2, "kiln.md, Loading", "Open the kiln lid to load the glaze ware. The lid handle stays cool when hot."),
    (3, "kiln.md, Cool", "Warning: glazed pots shatter from thermal shock, so never unload a kiln above 100 degrees."),
]


def test_a_question_about_risk_keeps_the_documents_caution_beyond_the_cap() -> None:
    """The caveat of a safety question is a finding even when the part's cap (here one) is spent on lines that
    share more of its words: the cautions that rank below are what the reader must not miss."""
    from dataclasses import replace

    from deepr_mcp.research.providers.local import findings_text
    from tests.research.requests import findings_request

    request = replace(findings_request(KILN_RISK, KILN_PASSAGES), max_findings=1)
    assert request.safety
    text = findings_text(request)
    assert text.splitlines()[0].endswith("[1]") or text.splitlines()[0].endswith("[2]"), text
    assert "never unload a kiln above 100 degrees. [3]" in text, text
    plain = findings_text(replace(request, safety=False))
    assert "[3]" not in plain, plain  # a question not about risk keeps its cap


def test_the_passage_ranked_first_may_give_one_line_more_than_the_others() -> None:
    """Retrieval's best passage often holds the answer over three sentences (the step, its option, its catch);
    every other passage gives at most two lines, so that one long passage does not fill the part."""
    from dataclasses import replace

    from deepr_mcp.research.providers.local import findings_text
    from tests.research.requests import findings_request

    pause = " The studio opens at nine on weekdays. "
    first = pause.join(
        [
            "Dip the stoneware mug in the glaze bucket for three seconds.",
            "Wipe the glaze off the foot of the stoneware mug with a damp sponge.",
            "Let the glazed stoneware mug dry for a day before the glaze firing.",
        ]
    )
    second = pause.join(
        [
            "Brush three coats of glaze onto a stoneware mug for an even colour.",
            "A stoneware mug glazed too thickly may crawl in the glaze firing.",
            "Pour glaze inside the stoneware mug first, then tip it out.",
        ]
    )
    request = findings_request("How do I glaze a stoneware mug?", [(1, "Glazing", first), (2, "Brushing", second)])
    lines = findings_text(replace(request, max_findings=6)).splitlines()
    assert sorted(line[-3:] for line in lines) == ["[1]", "[1]", "[1]", "[2]", "[2]"], lines


def test_a_field_list_alone_is_no_finding() -> None:
    """A settings page's "Default: ... Type: ..." lines share the question's words and say nothing alone: they are left
    out, while a field list that runs into its sentence is kept with it."""
    from tests.research.requests import local_findings

    fields_only = '* Default: "vent the kiln chamber after firing"\n* Type: Kiln chamber vent schedule'
    with_sentence = (
        "* Default: false\n* Type: Boolean\n\nWhen set, the kiln controller vents the chamber after a firing."
    )
    guide = "Venting the kiln chamber after a firing clears the fumes of the glaze."
    text = local_findings(
        "How do I vent the kiln chamber after a firing?",
        [
            (1, "config.md, chamber-vent", fields_only),
            (2, "guide.md, Venting", guide),
            (3, "config.md, vent", with_sentence),
        ],
    )
    assert "Type: Kiln chamber vent schedule" not in text, text
    assert "clears the fumes of the glaze. [2]" in text, text
    assert "the kiln controller vents the chamber after a firing. [3]" in text, text
