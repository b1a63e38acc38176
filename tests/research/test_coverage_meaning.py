"""A part is answered only by a passage that answers it by meaning, judged against the corpus's own
spread of cosines; one that merely shares its words (the keypad's "undo" for undoing a rename) leaves
it a gap, named in plain words.

The documents are a made-up kiln-controller manual: a section on renaming firing programs, one on the
keypad's undo key, and a hundred varied notes so that the corpus has a spread to stand out from.
"""

from __future__ import annotations

from pathlib import Path

from deepr_mcp.embedding import shared_embedder
from deepr_mcp.research.corpus.backfill import embed_pending
from deepr_mcp.research.corpus.storage import Corpus
from deepr_mcp.research.engine import Engine, new_state
from deepr_mcp.research.providers.local import LocalProvider
from deepr_mcp.research.retrieval.hybrid import HybridSearch
from deepr_mcp.research.synthesis.meaning import MIN_PASSAGES, MeaningJudge, heavy_words
from deepr_mcp.research.synthesis.report import NOT_ANSWERED
from tests.heat_pumps import HEAT_PUMPS
from tests.research.kiln import WARES

COLOURS = ["celadon", "tenmoku", "shino", "ash", "copper red", "cobalt blue", "matte white", "iron saturate"]
PARTS = ["thermocouple", "relay", "element", "lid hinge", "door seal", "vent fan", "peephole plug", "shelf post"]
FAULTS = ["has burnt out", "reads too low", "sticks open", "rattles", "leaks heat", "cracked"]
MATERIALS = ["silica", "feldspar", "whiting", "kaolin", "talc", "dolomite", "zinc oxide", "bone ash"]
ROOMS = ["studio", "garage", "basement", "classroom", "shed"]
TEMPLATES = [
    lambda n: f"Load {n} sets the {WARES[n % 10]} on shelf {n % 7 + 1}, {n % 5 + 2} cm from the elements.",
    lambda n: f"The {PARTS[n % 8]} wears out after about {n * 10} firings; replace it when it {FAULTS[n % 6]}.",
    lambda n: (
        f"Glaze {COLOURS[n % 8]} is mixed from {MATERIALS[n % 8]}, {MATERIALS[(n + 3) % 8]} and "
        f"{MATERIALS[(n + 5) % 8]}, sieved twice and applied {n % 3 + 1} mm thick."
    ),
    lambda n: f"Error E{n} on the display means the {PARTS[n % 8]} {FAULTS[n % 6]}; switch the kiln off at the wall.",
    lambda n: f"Cone {n % 12} bends at about {1000 + 20 * n} degrees when the kiln climbs {50 + n} degrees an hour.",
    lambda n: f"A {ROOMS[n % 5]} with a kiln needs {n % 6 + 3} air changes an hour while it fires, for the fumes.",
    lambda n: f"Wedge {n % 4 + 1} kg of {COLOURS[n % 8]} clay body for {n % 9 + 2} minutes to drive out the air.",
    lambda n: f"The warranty covers the {PARTS[n % 8]} for {n % 5 + 1} years if the kiln is serviced every spring.",
    lambda n: f"Pack {WARES[n % 10]} in straw and boxes of {n % 8 + 4} when shipping them to a gallery.",
    lambda n: f"Electricity for one firing of {n % 9 + 6} hours costs about {n % 7 + 2} euros at night rates.",
]
sections = [f"## Note {n}\n\n{TEMPLATES[n % 10](n)}" for n in range(1, 101)]
RENAME = (
    "## Renaming programs\n\nThe `kilnctl mv` command renames many firing programs at once: it takes a "
    "pattern such as `'bisque-(*)'` and a new name such as `'b-$1'`, and renames every program whose name "
    "matches. With `-n` it only prints what it would rename."
)
KEYPAD = (
    "## The keypad\n\nThe keypad's undo key reverts the last digit typed while entering a temperature; "
    "pressing it twice reverts the one before. It cannot undo a program that has already started."
)
DOC = "# Kiln controller\n\n" + "\n\n".join([RENAME, KEYPAD, *sections])
QUESTION = (
    "How do I rename many firing programs at once with a pattern, and can I undo the renaming later if I made a "
    "mistake?"
)


def embedded_corpus(tmp_path: Path, text: str) -> Corpus:
    (tmp_path / "manual.md").write_text(text)
    corpus = Corpus(tmp_path / "corpus.db")
    corpus.add_path(tmp_path / "manual.md")
    embed_pending(corpus, shared_embedder("minilm"))
    return corpus


async def test_a_part_sharing_only_words_with_a_passage_is_a_gap(tmp_path: Path) -> None:
    corpus = embedded_corpus(tmp_path, DOC)
    search = HybridSearch(corpus, shared_embedder("minilm"))
    state = await Engine(corpus, LocalProvider(), search=search).run(new_state(QUESTION))
    report = state.report or ""
    rename, undo = state.sub_questions
    assert rename.status == "answered" and "kilnctl mv" in report
    assert undo.status == "unanswered" and not undo.findings and not undo.covered_by
    answer = report.split("## Answer", 1)[1].split("\n## ", 1)[0]
    assert "undo key" not in answer  # the keypad's undo is no answer to undoing a rename
    gaps = report.split("## Gaps", 1)[1].split("\n## ", 1)[0]
    assert "Can I undo the renaming later if I made a mistake?" in gaps
    assert "no passage found clearly answers it" in gaps


async def test_what_was_drafted_for_a_part_judged_off_its_topic_is_shown_as_near_not_as_an_answer(
    tmp_path: Path,
) -> None:
    """The small embedder's verdict can be wrong (on the bench, a quarter of the parts the documents answer were
    judged off their topic), so what the provider drafted for such a part stays in the report, under a heading that
    says no passage clearly answers it, while the Answer and the other parts never lean on it."""
    corpus = embedded_corpus(tmp_path, DOC)
    search = HybridSearch(corpus, shared_embedder("minilm"))
    state = await Engine(corpus, LocalProvider(), search=search).run(new_state(QUESTION))
    report = state.report or ""
    rename, undo = state.sub_questions
    assert [f.claim for f in undo.near] == [KEYPAD.split("\n\n", 1)[1]]
    findings = report.split("## Findings", 1)[1].split("\n## ", 1)[0]
    heading = "### Passages near “Can I undo the renaming later if I made a mistake?” (none clearly answers it)"
    near = findings.split(heading)
    assert len(near) == 2 and "The keypad's undo key reverts the last digit" in near[1]
    assert "### Can I undo the renaming later" not in report  # never under its own heading, as if answered
    assert rename.status == "answered" and "undo key" not in report.split("## Findings", 1)[0]  # nor in the Answer
    assert "the nearest was" not in report  # the near passages are listed: the Gaps line does not point elsewhere


async def test_a_question_none_of_whose_parts_is_answered_says_so_and_gives_the_nearest_passages(
    tmp_path: Path,
) -> None:
    """Every part judged a gap: the Answer says no passage clearly answers the question and gives what was drafted
    nearest to it, as for a question of one part, instead of claiming the corpus holds nothing."""
    corpus = embedded_corpus(tmp_path, DOC)
    search = HybridSearch(corpus, shared_embedder("minilm"))
    question = "How do I print a firing program on paper, and can I send it to a friend by email?"
    state = await Engine(corpus, LocalProvider(), search=search).run(new_state(question))
    report = state.report or ""
    assert all(sq.status in ("weak", "unanswered") and not sq.findings for sq in state.sub_questions)
    assert any(sq.near for sq in state.sub_questions)
    answer = report.split("## Answer", 1)[1].split("\n## ", 1)[0]
    assert answer.strip().startswith(f"_{NOT_ANSWERED}_") and "[1]" in answer
    assert "holds no evidence" not in answer
    gaps = report.split("## Gaps", 1)[1].split("\n## ", 1)[0]
    assert "How do I print a firing program on paper?" in gaps and "email" in gaps
    assert "## Findings\n\n## " not in report  # no empty section when the Answer says everything


def test_the_judge_abstains_on_a_corpus_too_small_to_stand_anything_out(tmp_path: Path) -> None:
    corpus = embedded_corpus(tmp_path, HEAT_PUMPS)
    assert corpus.embedding_status(shared_embedder("minilm").name)["embedded"] < MIN_PASSAGES
    judge = MeaningJudge(corpus, shared_embedder("minilm"))
    ids = [p.id for p in corpus.search_passages("heat pump", 5)]
    assert judge.answers("What is the noise level of heat pumps?", "What is the noise level?", ids) is None


MORE_NOTES = "\n\n".join(f"## Note {n}\n\n{TEMPLATES[n % 10](n)}" for n in range(101, 301))
"""Two hundred more notes: in a corpus of a hundred passages the largest standing is about three deviations
(sqrt(2 ln n)), so only a corpus a few times that size lets the passage that answers stand out clearly."""


async def one_part_report(tmp_path: Path, question: str) -> tuple[str, str]:
    corpus = embedded_corpus(tmp_path, f"{DOC}\n\n{MORE_NOTES}")
    search = HybridSearch(corpus, shared_embedder("minilm"))
    state = await Engine(corpus, LocalProvider(), search=search).run(new_state(question))
    (part,) = state.sub_questions
    return part.status, state.report or ""


async def test_a_one_part_question_the_documents_do_not_answer_is_a_gap(tmp_path: Path) -> None:
    # the rename section shares "firing program" and "prints" with the question and is found by its
    # words, but no passage stands out by meaning: the report says so instead of answering with it
    status, report = await one_part_report(tmp_path, "How do I print a firing program on paper?")
    assert status in ("weak", "unanswered")
    answer = report.split("## Answer", 1)[1].split("\n## ", 1)[0]
    assert answer.strip().startswith(f"_{NOT_ANSWERED}_")
    gaps = report.split("## Gaps", 1)[1].split("\n## ", 1)[0]
    assert "How do I print a firing program on paper?" in gaps and "none clearly answers it" in gaps
    assert "### How do I print a firing program on paper?" not in report  # not answered under its own heading


async def test_a_one_part_question_the_documents_answer_has_no_gap(tmp_path: Path) -> None:
    status, report = await one_part_report(tmp_path, "How do I rename many firing programs at once with a pattern?")
    assert status == "answered"
    answer = report.split("## Answer", 1)[1].split("\n## ", 1)[0]
    assert "kilnctl mv" in answer and NOT_ANSWERED not in report and "## Gaps" not in report


def test_a_gaps_line_names_the_words_that_carry_the_question_not_an_idiom() -> None:
    # "hood" moves the question's meaning less than its average word: an idiom, not what is asked about
    embedder = shared_embedder("minilm")
    heavy = heavy_words(embedder, "What does the kiln controller do under the hood when it fires a glaze?")
    assert heavy is not None and "glaze" in heavy and "hood" not in heavy
    assert {"noise", "level"} <= (heavy_words(embedder, "What is the noise level of heat pumps?") or set())
    assert "boilers" in (heavy_words(embedder, "How efficient are gas boilers in cold climates?") or set())


async def test_a_part_too_bare_to_stand_alone_is_judged_by_meaning_leaning_on_the_question(tmp_path: Path) -> None:
    """ "Why would I use it?" after a question names nothing: alone its vector is near no passage, so the meaning
    judge called the part a gap while the findings above answer it. With at most one word of its own, it is read
    leaning on the whole question; a part with words of its own is still judged on them (the undo test above)."""
    corpus = embedded_corpus(tmp_path, DOC)
    search = HybridSearch(corpus, shared_embedder("minilm"))
    question = "How do I rename many firing programs at once with a pattern, and why would I use one?"
    state = await Engine(corpus, LocalProvider(), search=search).run(new_state(question))
    rename, bare = state.sub_questions
    assert bare.text == "Why would I use one?"
    assert rename.status == "answered" and bare.status == "answered"
    assert "## Gaps" not in (state.report or "")
