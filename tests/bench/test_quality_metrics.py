"""The research-quality bench's metrics: gold matching, claims parsing, duplicates, furniture, and a report admitting
that the documents do not answer a ``none`` question."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from bench import quality_metrics as qm
from tests.bench.test_outsider_question_set import table_cells

TODAYS_REPORT = """# Research report: How do I cache a function?

## Summary

Wrapper that stores each kiln reading in a notebook. [1] Returns the same as kiln_log(limit=None). [2]

## How do I cache a function?

- Wrapper that stores each kiln reading in a notebook that saves the maxsize most recent calls. [1] (confidence 0.81)
- Returns the same as kiln_log(limit=None), creating a thin wrapper. [2][3] (confidence 0.74)

## What is the background of cache a function?

_The corpus holds no evidence for this sub-question._

## Gaps

- What is the background of cache a function? (no passage in the corpus answers it [9])

## Sources

[1] functools.html, functools — Higher-order functions (passage pa8573c3fcd07cdc5)
[2] functools.html (passage pd788e858f38e753f)
[3] library/functools.rst.txt, Caching > lru_cache (passage p1)
"""

FUTURE_REPORT = """# How do I cache a function?

Use `functools.cache` for an unbounded cache [1, 2]; it never evicts, so it is smaller and faster.

```python
@cache
def factorial(n): return n * factorial(n - 1) if n else 1  [7]
```

### Findings

1. The cache is thread-safe [2].
* Not a claim: no citation.

### References

- [1]: library/functools.html > functools.cache — passage p123
- [2] library/functools.html, lru_cache (passage p456)
"""


# -- gold matching -----------------------------------------------------------------------------


def test_normalise_drops_markup_case_punctuation_and_pilcrows() -> None:
    expected = " pots are placed outside of shelf e g "
    assert qm.normalise("**Pots** are  placed\n outside of `shelf`, e.g.¶") == expected
    assert qm.normalise("[the docs](https://x.org/a_b) say “official”") == " the docs say official "
    assert qm.normalise("an object’s identity") == qm.normalise("an object's identity")


def test_gold_found_matches_whole_words_through_formatting() -> None:
    output = "It is possible that *pots* are placed\noutside of `shelf`, e.g. pieces [3]."
    assert qm.gold_found(output, ["pots are placed outside of shelf", "long labels"]) == [True, False]
    assert qm.gold_found("use pathlib", ["path"]) == [False]  # no match inside a word
    assert qm.gold_found("Returns the same as ``kiln_log(limit=None)``", ["kiln_log(limit=None)"]) == [True]


# -- claims ------------------------------------------------------------------------------------


def test_todays_report_claims_and_sources() -> None:
    parsed = qm.parse_report(TODAYS_REPORT)
    texts = [c.text for c in parsed.claims]
    assert texts == [
        "Wrapper that stores each kiln reading in a notebook.",
        "Returns the same as kiln_log(limit=None).",
        "Wrapper that stores each kiln reading in a notebook that saves the maxsize most recent calls.",
        "Returns the same as kiln_log(limit=None), creating a thin wrapper.",
    ]
    assert [c.citations for c in parsed.claims] == [(1,), (2,), (1,), (2, 3)]
    assert parsed.sources[1].passage_id == "pa8573c3fcd07cdc5"
    assert parsed.sources[1].source == "functools.html"
    assert parsed.sources[3].source == "library/functools.rst.txt"
    assert parsed.sources[3].location == "Caching > lru_cache"
    assert 9 not in {n for c in parsed.claims for n in c.citations}  # the gaps section holds no claims


def test_future_report_format_direct_answer_code_and_numbered_findings() -> None:
    parsed = qm.parse_report(FUTURE_REPORT)
    assert [c.text for c in parsed.claims] == [
        "Use `functools.cache` for an unbounded cache; it never evicts, so it is smaller and faster.",
        "The cache is thread-safe.",
    ]
    assert parsed.claims[0].citations == (1, 2)
    assert 7 not in {n for c in parsed.claims for n in c.citations}  # fenced code is not a claim
    assert parsed.sources[1].passage_id == "p123"
    assert parsed.sources[2].passage_id == "p456"


def test_a_citation_covers_the_uncited_sentences_before_it_in_a_paragraph() -> None:
    report = "## Answer\n\nWarning: Never extract. It is possible that files escape. [1][3] Uncited tail.\n"
    claims = qm.parse_report(report).claims
    assert [(c.text, c.citations) for c in claims] == [
        ("Warning: Never extract.", (1, 3)),
        ("It is possible that files escape.", (1, 3)),
    ]


def test_sentences_keep_their_citations() -> None:
    assert qm.split_sentences("One thing is true. [1] Another, e.g. this one, too. [2][3]") == [
        "One thing is true [1].",
        "Another, e.g. this one, too [2][3].",
    ]


# -- duplicates --------------------------------------------------------------------------------


def test_duplicates_identical_after_normalising_and_near_duplicates() -> None:
    texts = [
        "The glaze bucket is not sealed.",
        "the glaze bucket is **not sealed**",  # identical once normalised
        "The glaze bucket is not sealed at all.",  # Jaccard 6/8 = 0.75: different enough
        "Only fire pots you glazed.",
        "Only fire the pots you glazed.",  # Jaccard 5/6 = 0.83: a near-duplicate
    ]
    assert qm.duplicate_flags(texts) == [False, True, False, False, True]


def test_duplicate_rate_counts_repeats_not_originals() -> None:
    flags = qm.duplicate_flags(["a b c d", "a b c d", "a b c d", "x y z"])
    assert flags == [False, True, True, False]
    assert qm.duplicate_flags([]) == []


def test_jaccard() -> None:
    assert qm.jaccard(frozenset("ab"), frozenset("bc")) == 1 / 3
    assert qm.jaccard(frozenset(), frozenset()) == 1.0


# -- furniture ---------------------------------------------------------------------------------


def test_navigation_pages_and_sidebar_headings() -> None:
    for source in (
        "/usr/share/doc/python3/html/genindex-A.html",
        "/usr/share/doc/python3/html/genindex.html",
        "py-modindex.html",
        "html/search.html",
        "html/contents.html",
        "html/library/index.html",
    ):
        assert qm.is_navigation_source(source), source
    assert qm.is_navigation_source("library/tarfile.html", "Previous topic")
    assert qm.is_navigation_source("library/tarfile.html", "tarfile > Table of Contents¶")
    assert not qm.is_navigation_source("/usr/share/doc/python3/html/library/tarfile.html", "Examples¶")
    assert not qm.is_navigation_source("library/indexing.html")


def test_text_that_looks_like_navigation() -> None:
    assert qm.looks_like_navigation("Extraction filters¶ New in version 3.12.")
    assert qm.looks_like_navigation("Previous topic zipfile — Work with ZIP archives Next topic csv")
    assert qm.looks_like_navigation("This Page Report a Bug Show Source")
    assert qm.looks_like_navigation("5.3. Searching 5.3.1. The module cache 5.3.2. Shelves and posts 5.3.3. Hooks")
    assert qm.looks_like_navigation("[tarfile](tarfile.html) [zipfile](zipfile.html) [gzip](gzip.html) and more")
    assert qm.looks_like_navigation(
        "Path.read_bytes() Path.joinpath() PyZipFile Objects PyZipFile PyZipFile.writepy() ZipInfo Objects "
        "ZipInfo.from_file() ZipInfo.is_dir() ZipInfo.filename ZipInfo.date_time ZipInfo.compress_type"
    )
    assert qm.looks_like_navigation("Overview\nInstallation\nTutorial\nAPI reference\nChangelog")


def test_prose_and_code_are_not_navigation() -> None:
    assert not qm.looks_like_navigation(
        "It is possible that pots are placed outside of the shelf, e.g. pieces that have long labels."
    )
    assert not qm.looks_like_navigation("New in version 2.4. Changed in version 2.6: added the filter argument.")
    code = "Use it like this:\n\n```python\nimport tarfile\ntar = tarfile.open(name)\ntar.extractall()\n```"
    assert not qm.looks_like_navigation(code)
    assert not qm.looks_like_navigation("Call os.path.join() and os.path.normpath() before opening the file.")
    cut = "```python3\nimport asyncio\n\ndef io():\n    # 1. Read\n    # 2. Decode\n    # 3. Return\n    return f\n"
    assert not qm.looks_like_navigation(cut)  # a passage boundary cut the block before its closing fence
    table = "'B' | unsigned_char(bitwise=True)\n'b' | unsigned_char\n'c' | char\n'd' | double\n'f' | float"
    assert not qm.looks_like_navigation(table)


def test_is_furniture_by_text_or_by_cited_source() -> None:
    assert qm.is_furniture("A fine sentence about tarfile.", [("html/genindex-T.html", "")])
    assert qm.is_furniture("Next topic csv", [("library/zipfile.html", "")])
    assert not qm.is_furniture("A fine sentence about tarfile.", [("library/tarfile.html", "Examples")])


def test_percentile() -> None:
    assert qm.percentile([], 0.95) == 0.0
    assert qm.percentile([float(i) for i in range(1, 21)], 0.95) == 19.0
    assert qm.percentile([3.0], 0.95) == 3.0


# -- the question set --------------------------------------------------------------------------


def test_question_set_shape() -> None:
    data = json.loads((Path(__file__).parents[2] / "bench" / "research_questions.json").read_text())
    questions = data["questions"]
    assert len(questions) >= 40
    assert len({q["id"] for q in questions}) == len(questions)
    assert {q["type"] for q in questions} >= {"how-to", "comparison", "safety", "concept", "definition", "version"}
    for q in questions:
        assert 2 <= len(q["gold"]) <= 5, q["id"]
        for phrase in q["gold"]:
            assert 3 <= len(phrase.split()) <= 10, (q["id"], phrase)
            assert qm.normalise(phrase) not in qm.normalise(q["question"]), (q["id"], phrase)  # no free hits
    assert all(q["gold"] for q in questions if q["type"] == "safety")


# -- gaps contradicting the answer, question wording, the multi-corpus question sets -------------

ANSWERED_THEN_GAP = """# Research report: How do I rotate logs, and how often should I?

## Findings

### How do I rotate logs?

- Rotation renames the current file and opens a new one. [1]

### How often should I rotate logs?

_The corpus holds no evidence for this sub-question._

## Gaps

- How do I rotate logs? (no passage in the corpus answers it)
- How often should I rotate logs? (no passage in the corpus answers it)

## Sources

[1] logging.html, Rotation (passage p1)
"""


def test_a_gap_naming_an_answered_sub_question_contradicts_the_report() -> None:
    assert qm.gaps_contradicting(ANSWERED_THEN_GAP) == ["- How do I rotate logs? (no passage in the corpus answers it)"]


def test_gaps_for_unanswered_sub_questions_and_short_section_names_are_no_contradiction() -> None:
    honest = ANSWERED_THEN_GAP.replace("- How do I rotate logs? (no passage in the corpus answers it)\n", "")
    assert qm.gaps_contradicting(honest) == []
    assert qm.gaps_contradicting(TODAYS_REPORT) == []  # its gap names the sub-question it left unanswered
    summary_only = "## Answer\n\nLogs rotate daily. [1]\n\n## Gaps\n\n- The answer does not say why.\n"
    assert qm.gaps_contradicting(summary_only) == []  # "Answer" is a report section, not a sub-question


def test_a_gap_for_a_part_shown_only_with_passages_near_it_is_no_contradiction() -> None:
    part = "My kiln log is a zipped file with notes at the top and I want the controller to read all of it?"
    report = (
        f"## Answer\n\nThe controller reads plain logs. [1]\n\n## Findings\n\n"
        f"### Passages near “{part}” (none clearly answers it)\n\n- The controller reads plain logs. [1]\n\n"
        f"## Gaps\n\n- {part} (no passage found clearly answers it)\n\n## Sources\n\n[1] kiln.md (passage p1)\n"
    )
    assert qm.gaps_contradicting(report) == []
    answered = report.replace("Passages near “", "").replace("” (none clearly answers it)", "")
    assert qm.gaps_contradicting(answered) == [f"- {part} (no passage found clearly answers it)"]


def test_longest_shared_run_finds_consecutive_words_only() -> None:
    haystack = "|".join(qm.normalise(t) for t in ["Use the credential helper to cache passwords.", "Push often."])
    assert qm.longest_shared_run("how do I cache passwords on push", haystack) == ["cache", "passwords"]
    assert qm.longest_shared_run("Use the credential helper, please", haystack) == [
        "use",
        "the",
        "credential",
        "helper",
    ]
    assert qm.longest_shared_run("passwords push", haystack) == ["passwords"]  # no run across passages
    assert qm.longest_shared_run("nothing shared", haystack) == []


def test_multi_corpus_question_sets_shape() -> None:
    from bench.quality_corpora import CORPORA

    assert len(CORPORA) >= 4
    assert {"postgresql-doc", "git-doc", "r-doc-pdf"}.isdisjoint(CORPORA)
    seen: set[str] = set()
    for name, spec in CORPORA.items():
        if name == "python3-doc" or not spec.has_set("tuned"):
            continue  # the original set, checked above; node-api has only its newcomer set (test_newcomer_question_set)
        tuned = json.loads(spec.question_set("tuned").read_text())["questions"]
        heldout = json.loads(spec.question_set("heldout").read_text())["questions"]
        assert len(tuned) + len(heldout) >= 15 and len(heldout) * 3 >= len(tuned) + len(heldout) - 2, name
        kinds = {q["type"] for q in tuned + heldout}
        assert {"how-to", "safety", "comparison", "concept", "two-part"} <= kinds, name
        for q in tuned + heldout:
            assert q["id"] not in seen, q["id"]
            seen.add(q["id"])
            assert 2 <= len(q["gold"]) <= 4, q["id"]
            for phrase in q["gold"] + q.get("warning", []):
                assert 2 <= len(phrase.split()) <= 14, (q["id"], phrase)
                assert qm.normalise(phrase) not in qm.normalise(q["question"]), (q["id"], phrase)
            assert bool(q.get("warning")) == (q["type"] == "safety"), q["id"]
            assert bool(q.get("uncovered")) == (q["type"] == "two-part"), q["id"]


def test_a_silence_gap_contradicts_a_cited_claim_that_states_it() -> None:
    report = (
        "# Research report: How efficient are heat pumps, and how loud are they?\n\n## Answer\n\n"
        "A heat pump reaches a COP of about 3.5 at 7 degrees. [1]\n\n## Findings\n\n"
        "### How loud are heat pumps?\n\n- The outdoor unit has a noise level of 45 dB. [1]\n\n## Gaps\n\n"
        "What the documents do not answer:\n\n"
        "- The documents say nothing about noise level (asked: How loud are heat pumps?)\n"
        "- The documents say nothing about gas boilers (asked: How efficient are gas boilers?)\n\n"
        "## Sources\n\n[1] heat-pumps.md, Efficiency (passage p1)\n"
    )
    assert qm.gaps_contradicting(report) == [
        "- The documents say nothing about noise level (asked: How loud are heat pumps?)"
    ]


TEMPLATED = """# Research report: Can I fire a kiln with the lid propped open to dry the ware?

## Answer

You can, for the first hour at most. [1]

## Findings

### Which functions or settings are used to fire a kiln with the lid propped open?

- The vent setting opens the lid a crack. [2]

### Passages near “Can I fire a kiln with the lid propped open?” (none clearly answers it)

- The lid hinge wears out. [3]

## Gaps

What the documents do not answer:

- What example shows how to fire a kiln with the lid open? (the nearest was manual.md, Lid (hinge) care)
- The documents say nothing about dry ware (asked: Can I fire a kiln with the lid propped open to dry the ware?)

## Sources

[1] manual.md (passage p1)
"""


def test_parts_the_asker_did_not_ask_are_counted_whatever_section_names_them() -> None:
    question = "Can I fire a kiln with the lid propped open to dry the ware?"
    assert qm.unasked_parts(TEMPLATED, question) == [
        "Which functions or settings are used to fire a kiln with the lid propped open?",
        "What example shows how to fire a kiln with the lid open?",
    ]
    assert "Can I fire a kiln with the lid propped open?" in qm.report_parts(TEMPLATED)


def test_pdf_artefacts_in_a_claim() -> None:
    assert qm.pdf_artefacts("the search fa- cility finds it") == ["hyphen"]
    assert qm.pdf_artefacts("7.10 How do I convert factors? . . . . . 30") == ["leaders"]
    assert qm.pdf_artefacts("set R_ LIBS_USER first") == ["split"]
    assert qm.pdf_artefacts("Chapter 2: R Basics 5 can invoke it") == ["header"]
    assert qm.pdf_artefacts("A clean sentence about well-known pre-releases.") == []
    assert qm.pdf_artefacts("It uses device- or library-specific code.") == []  # a suspended hyphen


def test_an_uncovered_half_is_named_only_by_a_gap_about_that_half() -> None:
    uncovered = "firing on a timer every night"
    named = "## Answer\n\nDip it. [1]\n\n## Gaps\n\n- The documents say nothing about timers or nights.\n"
    other_half = "## Answer\n\nFire it. [1]\n\n## Gaps\n\n- Nothing on how to glaze a bowl.\n"
    none = "## Answer\n\nDip it. [1]\n\n## Findings\n\n- The kiln fires at night. [1]\n"
    assert qm.uncovered_named(named, uncovered)
    assert not qm.uncovered_named(other_half, uncovered)
    assert not qm.uncovered_named(none, uncovered)  # a finding is not a gap


def test_answer_holds_gold_reads_only_the_answer_section() -> None:
    report = (
        "# Research report: q\n\n## Answer\n\nSet the holiday mode before you leave. [1]\n\n"
        "## Findings\n\n- The plumbing stays above zero. [2]\n"
    )
    assert qm.answer_holds_gold(report, ["set the holiday mode"]) is True
    assert qm.answer_holds_gold(report, ["plumbing stays above zero"]) is False  # in the findings only
    assert qm.answer_holds_gold("[1] a passage quoted by top-5 search", ["a passage quoted"]) is None


def test_answer_holds_gold_reads_past_a_heading_inside_code() -> None:
    report = (
        "# Research report: q\n\n## Answer\n\nPut this at the top of the file: [1]\n\n```\n## not a heading\n```\n\n"
        "Then set the holiday mode before you leave. [2]\n\n## Gaps\n\n- nothing about the boiler\n"
    )
    assert qm.answer_holds_gold(report, ["set the holiday mode"]) is True
    assert qm.answer_holds_gold(report, ["nothing about the boiler"]) is False  # the Gaps section is not the answer


# -- the none kind: a question the documents do not answer at all ----------------------------------

NO_EVIDENCE = (
    "# Research report: Which clay body suits a wood-fired kiln?\n\n## Answer\n\n"
    "The corpus holds no evidence that answers this question.\n\n## Sources\n\n"
)
NOTHING_CLEAR = (
    "# Research report: Which clay body suits a wood-fired kiln?\n\n## Answer\n\n"
    "_No passage found clearly answers this question (see Gaps); the documents may still say it in other words. "
    "The passages nearest to it say:_\n\nThe kiln door seals with a gasket. [1]\n\n## Sources\n\n[1] kiln.html\n"
)
WITH_GAPS = (
    "# Research report: q\n\n## Answer\n\nThe kiln door seals with a gasket. [1]\n\n"
    "## Gaps\n\nWhat the documents do not answer:\n\n- the documents say nothing about clay bodies\n"
)
PRESENTED_AS_ANSWER = (
    "# Research report: q\n\n## Answer\n\nFire stoneware to cone ten in the kiln. [1]\n\n"
    "## Findings\n\n- Stoneware matures at cone ten. [1]\n- No passage on glaze colours is needed here. [2]\n\n"
    "## Sources\n\n[1] kiln.html\n[2] glaze.html\n"
)


def test_a_report_admits_no_answer_by_a_gap_or_by_its_answer_saying_so() -> None:
    assert qm.admits_no_answer(WITH_GAPS)
    assert qm.admits_no_answer(NO_EVIDENCE)
    assert qm.admits_no_answer(NOTHING_CLEAR)
    assert qm.admits_no_answer(NO_EVIDENCE.replace("holds no evidence that", "has no evidence which"))  # reworded
    assert not qm.admits_no_answer(PRESENTED_AS_ANSWER)  # findings, no Gaps: loosely related passages as the answer
    assert not qm.admits_no_answer("[1] kiln.html\nThe kiln door seals with a gasket.")  # top-5 search's output


def test_the_answer_must_say_it_not_a_finding_or_code() -> None:
    in_findings = PRESENTED_AS_ANSWER.replace("glaze colours is needed here", "found clearly answers this question")
    assert not qm.admits_no_answer(in_findings)
    in_code = "## Answer\n\n```\n# no passage found clearly answers this question\n```\n\nFire to cone ten. [1]\n"
    assert not qm.admits_no_answer(in_code)


def test_none_questions_are_left_out_of_the_evidence_means_and_counted_as_admitted() -> None:
    from bench import research_quality as rq

    answered = rq.Question("x-kiln-cone", "how-to", "How hot?", ["fire stoneware to cone ten", "matures at cone ten"])
    nothing = rq.Question("x-kiln-clay", "none", "Which clay body?", [], absent=["which clay body to buy"])
    quiet = rq.Question("x-kiln-fuel", "none", "Which wood burns best?", [], absent=["which wood to burn"])
    rows = [
        rq.score(answered, {"output": PRESENTED_AS_ANSWER, "claims": [], "seconds": 1.0}),
        rq.score(nothing, {"output": NO_EVIDENCE, "claims": [], "seconds": 1.0}),
        rq.score(quiet, {"output": PRESENTED_AS_ANSWER, "claims": [], "seconds": 1.0}),
    ]
    assert [(r["answerable"], r["none_admitted"], r["answer_gold"]) for r in rows] == [
        (True, False, True),
        (False, True, None),
        (False, False, None),
    ]
    summary = rq.summarise(rows)
    assert (summary["recall"], summary["hit"], summary["answer_gold"]) == (1.0, 1.0, 1.0)  # the answered one only
    assert (summary["questions"], summary["answerable_n"], summary["none_admitted"], summary["none_n"]) == (3, 1, 1, 2)
    assert summary["found_n"] == 1  # gaps when found: the answered question only
    mode = rq.MODES[-1]
    cells = table_cells(rq.corpus_table({rq.BASELINE: summary, mode: summary}), mode)
    assert (cells["recall"], cells["vs top-5"], cells["none admitted"]) == ("1.00", "1.00x", "1 of 2")
    only_none = rq.summarise(rows[1:])  # no question with gold: no recall to show, never a division by zero
    cells = table_cells(rq.corpus_table({rq.BASELINE: only_none, mode: only_none}), mode)
    assert (cells["hit"], cells["recall"], cells["vs top-5"], cells["answer holds gold"]) == ("n/a",) * 4
    assert cells["none admitted"] == "1 of 2"
    cells = table_cells(rq.corpus_table({mode: rq.summarise(rows[:1])}), mode)
    assert cells["none admitted"] == "n/a"  # no none question


def test_check_gold_accepts_empty_gold_for_a_none_question_only() -> None:
    from bench import research_quality as rq

    nothing = rq.Question("x-kiln-clay", "none", "Which clay body?", [], absent=["which clay body to buy"])
    assert rq.kind_problem(nothing) is None
    assert "no gold" in str(rq.kind_problem(rq.Question("x", "none", "q", ["fire to cone ten"], absent=["clay"])))
    assert "absent" in str(rq.kind_problem(rq.Question("x", "none", "q", [])))
    assert "0 gold phrases" in str(rq.kind_problem(rq.Question("x", "how-to", "q", [])))
    assert "1 gold phrases" in str(rq.kind_problem(rq.Question("x", "safety", "q", ["fire to cone ten"])))
    two = rq.Question("x", "how-to", "q", ["fire to cone ten", "cool for a day"])
    assert rq.kind_problem(two) is None
    assert "none questions only" in str(rq.kind_problem(dataclasses.replace(two, absent=["clay"])))


def test_summed_prints_one_table_over_several_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Sets run one by one (one ``--json`` each) summed per corpus and mode, without running anything."""
    from bench import research_quality as rq

    answered = rq.Question("x-kiln-cone", "how-to", "How hot?", ["fire stoneware to cone ten", "matures at cone ten"])
    nothing = rq.Question("x-kiln-clay", "none", "Which clay body?", [], absent=["which clay body to buy"])
    mode = rq.MODES[-1]
    runs = [
        (answered, {"output": PRESENTED_AS_ANSWER, "claims": [], "seconds": 1.0}),
        (nothing, {"output": NO_EVIDENCE, "claims": [], "seconds": 3.0}),
    ]
    paths = []
    for i, (question, result) in enumerate(runs):
        path = tmp_path / f"set{i}.json"
        payload = {"corpora": {"kilns": {"results": {mode: [rq.score(question, result)]}}}}
        path.write_text(json.dumps(payload))
        paths.append(path)
    summaries = rq.summed(paths)["kilns"]
    assert summaries[mode] is not None and summaries[rq.BASELINE] is None
    assert (summaries[mode]["questions"], summaries[mode]["recall"], summaries[mode]["none_admitted"]) == (2, 1.0, 1)
    assert summaries[mode]["mean_s"] == 2.0
    assert rq.main(["--summed", *map(str, paths)]) == 0
    out = capsys.readouterr().out
    assert "### kilns: 2 runs summed" in out and "| kilns | 2 |" in out
    cells = table_cells(out[out.index("| mode") : out.index("### Summary")], mode)
    assert (cells["recall"], cells["none admitted"]) == ("1.00", "1 of 1")


def test_the_answer_opening_is_its_first_cited_statement_with_the_code_it_introduces() -> None:
    report = (
        "# Research report: q\n\n## Answer\n\n_No passage found clearly answers this question; nearest:_\n\n"
        "Drain the tank before a frost. [1] Set the holiday mode before you leave. [2]\n\n## Findings\n\n- x [1]\n"
    )
    assert qm.answer_opening(report) == "Drain the tank before a frost. [1]"
    assert qm.answer_opens_with_gold(report, ["drain the tank"]) is True
    assert qm.answer_opens_with_gold(report, ["set the holiday mode"]) is False  # in the Answer, but second
    introduced = (
        "# Research report: q\n\n## Answer\n\nPut this at the top of the file: [1]\n\n```\nmode = holiday\n```\n\n"
        "Then drain the tank. [2]\n"
    )
    assert qm.answer_opening(introduced) == "Put this at the top of the file: [1] mode = holiday"
    assert qm.answer_opens_with_gold(introduced, ["mode = holiday"]) is True
    assert qm.answer_opens_with_gold("[1] a passage quoted by top-5 search", ["a passage"]) is None
