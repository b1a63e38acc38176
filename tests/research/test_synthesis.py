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

DOC = """# tarfile

## Extracting

Use TarFile.extractall() to extract every member of an archive:

```python
with tarfile.open("sample.tar.gz") as tar:
    tar.extractall(path="out")
```

## Security

Never extract archives that strangers send before you look inside them. It is possible that files land
outside the target path, e.g. members that have absolute names that begin with "/" or filenames with
two dots "..".
"""


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    (tmp_path / "tarfile.md").write_text(DOC)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "tarfile.md")
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
            text = "How do you extract a tar archive?\nWhat does the documentation warn about?"
        elif task == prompts.TASK_FINDINGS:
            numbers = re.findall(r"^\[(\d+)\] \(from: [^)]*Security", user, re.M) or ["1"]
            wrong = "99"
            text = "\n".join(
                [
                    f"- Never extract archives that strangers send before you look inside them. [{wrong}]",
                    f"- Tar archives are always safe because Python sandboxes extraction. [{numbers[0]}]",
                    f"- Use TarFile.extractall() to extract every member of an archive: [{numbers[0]}]",
                    "```",
                    "os.system('tar xf sample.tar.gz')",
                    "```",
                ]
            )
        else:
            findings = [line[2:] for line in user.splitlines() if line.startswith("- ")]
            text = " ".join(findings[:2]) + " Python guarantees that extraction is always safe. [1]"
        return Completion(text=text, usage=Usage(10, 10), model=self.model, provider=self.name)


async def test_a_bad_draft_is_checked_claim_by_claim(corpus: Corpus) -> None:
    state = await Engine(corpus, DraftingModel()).run(new_state("How do I safely extract a tar archive?"))
    report = state.report or ""
    assert "always safe" not in report  # invented claims are dropped, in findings and in the answer
    assert "os.system" not in report  # code the passages do not hold is not quoted
    claims = [f for sq in state.sub_questions for f in sq.findings]
    assert [c.claim for c in claims].count(
        "Never extract archives that strangers send before you look inside them."
    ) == 1  # the second sub-question's copy is merged into the first
    for finding in claims:
        assert finding.passage_ids, finding.claim  # the wrong number [99] was re-attributed
        for pid in finding.passage_ids:
            assert support(finding.claim, corpus.passage(pid).text) >= 0.8


async def test_local_report_answers_first_quotes_code_and_never_repeats(corpus: Corpus) -> None:
    state = await Engine(corpus, LocalProvider()).run(
        new_state("How do I safely extract a tar archive without path traversal?")
    )
    report = state.report or ""
    assert report.index("## Answer") < report.index("## Findings") < report.index("## Sources")
    answer = report.split("## Answer", 1)[1].split("## Findings", 1)[0]
    assert "Never extract archives that strangers send" in answer  # the warning leads
    assert "```" in report and 'tar.extractall(path="out")' in report  # code stays code, line breaks kept
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
        "Pickling is alternatively known as serialization or flattening. Warning: The pickle module is insecure "
        "by design. Unpickle only data you trust. It is possible to construct malicious pickle data."
    )
    out = _findings(
        "Is it safe to unpickle data from an untrusted source?",
        [(1, "pickle.html, pickle", text)],
        "how_to, safety",
        ["unpickle", "data", "untrusted"],
    )
    assert "- Warning: The pickle module is insecure by design. Unpickle only data you trust. [1]" in out.splitlines()


def test_a_sentence_opening_with_it_takes_in_the_one_it_refers_to() -> None:
    text = "Python 3.8 adds new syntax for assignments inside larger expressions. It is known as the walrus operator."
    out = _findings("What is the walrus operator?", [(1, "whatsnew.html, News", text)], "definition", ["walrus"])
    assert "- Python 3.8 adds new syntax for assignments inside larger expressions. It is known as the walrus" in out


def test_a_sentence_sharing_nothing_with_the_question_is_not_a_finding() -> None:
    passages = [
        (1, "pickle.html, pickle", "Never unpickle data received from an untrusted source. It is a security risk."),
        (2, "multiprocessing.html, Authentication keys", "An authentication key is a byte string like a password."),
    ]
    out = _findings(
        "Is it safe to unpickle data from an untrusted source?", passages, "how_to, safety", ["unpickle", "untrusted"]
    )
    assert "[1]" in out and "authentication key" not in out


def test_a_safety_answer_leads_with_the_warning_about_harm_not_any_never() -> None:
    question = "What are the risks when calling subprocess with shell=True?"
    groups = [
        (
            question,
            [
                "Unlike some other popen functions, this implementation will never implicitly call a system shell. [1]",
                "If the shell is invoked explicitly via shell=True, all whitespace and metacharacters must be quoted "
                "so that shell injection vulnerabilities are avoided in subprocess calls. [1]",
            ],
        )
    ]
    from tests.research.test_answer import _answer

    assert _answer(question, groups, "general, safety", ["subprocess", "shell"]).startswith(
        "If the shell is invoked explicitly"
    )


def test_a_part_lists_as_many_findings_as_the_engine_allows_it() -> None:
    """A question planned as few parts may say more in each (``shares.findings_per_part``); a request
    with no cap gets the provider's own default."""
    from dataclasses import replace

    from deepr_mcp.research.providers.local import MAX_FINDINGS, findings_text
    from tests.research.requests import findings_request

    facts = [
        "reference counting releases most objects at once",
        "cycles between containers are found by a separate pass",
        "three generations hold objects by their age",
        "finalizers run before unreachable objects are released",
        "thresholds decide when each generation is examined",
        "weak references do not keep their referents alive",
        "the debug flags print statistics about each run",
        "objects with __del__ methods are handled since PEP 442",
        "freezing moves survivors to a permanent generation",
        "disabling automatic runs leaves manual calls possible",
        "callbacks are told before and after every run",
    ]
    passages = [
        (n, f"gc.html, gc > Part {n}", f"The garbage collector frees memory: {fact}.")
        for n, fact in enumerate(facts, 1)
    ]
    key = ["garbage", "collector", "frees"]
    sub = "How does the garbage collector free memory?"
    request = findings_request(sub, passages, key_terms=key)

    def listed(cap: int) -> int:
        return sum(line.startswith("- ") for line in findings_text(replace(request, max_findings=cap)).splitlines())

    assert listed(0) == MAX_FINDINGS < listed(8) == 8
