"""The CLI's research and corpus commands as a user runs them: real subprocesses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.servers import server_env


def run(data_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deepr_mcp", *args],
        capture_output=True,
        text=True,
        env=server_env(data_dir, **env),
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


def test_research_on_an_empty_corpus_says_how_to_add_documents(empty_data_dir: Path) -> None:
    data_dir = empty_data_dir
    proc = run(data_dir, "research", "Why did the first transatlantic telegraph cable fail?")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "is empty" in proc.stderr and "deepr-mcp corpus add PATH" in proc.stderr and "--sample" in proc.stderr
    assert (
        not (data_dir / "corpus.db").exists() or "0 passages" in run(data_dir, "corpus", "list").stdout + " 0 passages"
    )
    listed = run(data_dir, "corpus", "list")
    assert listed.stdout.startswith("no documents yet: ")  # nothing was added behind the user's back


def test_research_on_the_embedded_default(empty_data_dir: Path) -> None:
    data_dir = empty_data_dir
    proc = run(data_dir, "research", "--sample", "Why did the first transatlantic telegraph cable fail?")
    assert proc.returncode == 0, proc.stderr
    assert "throwaway data dir" in proc.stderr
    assert run(data_dir, "corpus", "list").stdout.startswith("no documents yet: ")  # the sample was used, not kept
    assert proc.stdout.startswith("# Research report: Why did the first transatlantic telegraph cable fail?")
    assert "insulation" in proc.stdout and "## Sources" in proc.stdout
    assert "100% complete" in proc.stderr  # the progress bar reached the end
    assert "Traceback" not in proc.stderr


def test_research_bad_input_is_refused_as_campaign_start_refuses_it(data_dir: Path) -> None:
    """The command line builds the same input model as the tool, so its refusals read the same."""
    refused = "deepr-mcp: error: invalid arguments for campaign_start: "
    for args, why in [
        (["     "], "question: needs at least 3 characters besides spaces"),
        (["A fine question?", "--budget", "-1"], "budget: Input should be greater than 0"),
        (["A fine question?", "--budget", "nan"], "budget: Input should be a finite number"),
        (["A fine question?", "--budget", "inf"], "budget: Input should be a finite number"),
        (["A fine question?", "--budget", "1e12"], "budget: Input should be less than or equal to 10000"),
        (["A fine question?", "--max-sub-questions", "13"], "max_sub_questions: Input should be less than or equal"),
    ]:
        proc = run(data_dir, "research", *args)
        assert proc.returncode == 2 and refused + why in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_corpus_commands(data_dir: Path, tmp_path: Path) -> None:
    doc = tmp_path / "whales.md"
    doc.write_text("# Whales\n\nBlue whales are the largest animals ever known.\n")
    (tmp_path / "bad.txt").write_bytes(b"\x00binary")
    added = run(data_dir, "corpus", "add", str(tmp_path))
    assert added.returncode == 1  # one file failed, and says why
    assert "added" in added.stdout and "looks binary" in added.stdout
    found = run(data_dir, "corpus", "search", "largest animals")
    assert found.returncode == 0 and "whales.md [Whales]" in found.stdout
    listed = run(data_dir, "corpus", "list")
    assert "whales.md" in listed.stdout
    missing = run(data_dir, "corpus", "add", str(tmp_path / "nope.md"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_research_searches_the_docs_words_given_with_query(empty_data_dir: Path, tmp_path: Path) -> None:
    """--query is campaign_start's ``queries``: a passage in the documentation's words reaches the report."""
    from tests.research.test_plan_searches import ANSWER, CHAPTERS, QUESTION

    manual = tmp_path / "pottery.md"
    chapters = "\n\n".join(f"## {title}\n\n{body}" for title, body in CHAPTERS)
    manual.write_text(f"# Pottery manual\n\n{chapters}\n\n## Kiln furniture\n\n{ANSWER}\n")
    args = ["research", QUESTION, "--corpus", str(manual), "--max-sub-questions", "1"]
    plain = run(empty_data_dir, *args, DEEPR_RESEARCH_EMBEDDER="none")
    assert plain.returncode == 0 and "kiln wash" not in plain.stdout
    given = run(empty_data_dir, *args, "--query", "kiln wash shelf", DEEPR_RESEARCH_EMBEDDER="none")
    assert given.returncode == 0 and "kiln wash" in given.stdout, given.stdout
    refused = run(empty_data_dir, "research", QUESTION, "--query", "k")
    assert refused.returncode == 2 and "queries.0: String should have at least 2 characters" in refused.stderr
