"""What the CLI says when something is missing or wrong: each message names the thing and what to do.

Driven through ``main`` as a user types the commands; every file and server is made here (a PDF with
a password, one without text, a port nobody listens on).
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from pypdf import PdfWriter

from deepr_mcp.cli import main
from deepr_mcp.research.corpus.ingest.progress import eta
from deepr_mcp.research.synthesis.report import render_report


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("DEEPR_CONFIG", "")
    for name in ("DEEPR_PROVIDER", "DEEPR_OPENAI_BASE_URL", "DEEPR_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return ["--data-dir", str(tmp_path / "data")]


def test_an_empty_corpus_says_so_and_how_to_add(data: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*data, "corpus", "list"]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("no documents yet: ") and "deepr-mcp corpus add PATH" in listed
    assert main([*data, "corpus", "search", "cables"]) == 1
    assert capsys.readouterr().out.startswith("no documents yet: ")


def test_a_search_without_hits_says_so(data: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "note.md").write_text("# Cables\n\nGutta-percha insulated the first submarine cables.\n")
    assert main([*data, "corpus", "add", str(tmp_path / "note.md")]) == 0
    capsys.readouterr()
    # by words (by meaning there is always a nearest passage, however far)
    assert main([*data, "corpus", "search", "zebra", "--mode", "lexical"]) == 1
    assert capsys.readouterr().out == "no passage matches 'zebra' in 1 documents; try other words\n"


def test_no_upstreams_says_where_to_configure_them(data: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("check", "list"):
        assert main([*data, "upstreams", command]) == 0
        out = capsys.readouterr().out
        assert out.startswith("no upstreams configured yet: add [[upstreams]] entries to ") and "config.toml" in out


def test_a_bad_file_is_reported_once_and_not_again_as_new(
    data: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.md").write_text("# Cables\n\nGutta-percha insulated the first submarine cables.\n")
    bad = folder / "bad.pdf"
    bad.write_bytes(b"not a pdf at all")

    assert main([*data, "corpus", "add", str(bad)]) == 1  # one file: the error once, not twice
    captured = capsys.readouterr()
    assert (captured.out + captured.err).count("is not a PDF file") == 1

    assert main([*data, "corpus", "add", str(folder)]) == 0  # the same bytes failed before: not news
    out = capsys.readouterr().out
    assert sum("bad.pdf" in line for line in out.splitlines()) == 1 and "[failed the same way last time]" in out
    summary = [line for line in out.splitlines() if "1 of them failed the same way last time" in line]
    assert len(summary) == 1 and out.splitlines()[-1].startswith("searchable by meaning")  # embedded after

    bad.write_bytes(b"still not a pdf, but different bytes")
    assert main([*data, "corpus", "add", str(folder)]) == 1  # changed and failing: a new failure
    assert "failed the same way" not in capsys.readouterr().out


def test_progress_in_a_pipe_is_plain_lines_with_counts(
    data: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(3):
        (folder / f"n{n}.md").write_text(f"# Note {n}\n\nSubmarine cable number {n} was laid in the Atlantic.\n")
    assert main([*data, "corpus", "add", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "\r" not in out and "\x1b" not in out
    assert [line.rsplit("  [", 1)[1].split(",")[0] for line in out.splitlines()[1:4]] == ["1/3", "2/3", "3/3"]


def test_eta_comes_from_the_pace_so_far() -> None:
    assert eta(time.monotonic() - 10, 1, 3) in (", ETA 20s", ", ETA 21s")
    assert eta(time.monotonic() - 10, 3, 3) == ""  # nothing left
    assert eta(time.monotonic(), 1, 3) == ""  # no pace yet


def pdf(path: Path, *, password: str | None = None) -> Path:
    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    if password:
        writer.encrypt(password)
    writer.write(path)
    return path


def test_pdf_problems_name_the_fix(data: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*data, "corpus", "add", str(pdf(tmp_path / "locked.pdf", password="secret"))]) == 1
    out = capsys.readouterr().out
    assert "locked.pdf: password-protected PDF" in out and "FileNotDecryptedError" not in out
    assert main([*data, "corpus", "add", str(pdf(tmp_path / "scan.pdf"))]) == 1
    assert "scan.pdf: no text layer (scanned?): OCR it first" in capsys.readouterr().out


def test_http_given_a_url_explains_the_address_form(data: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*data, "serve", "--http", "http://127.0.0.1:8765"])
    assert exit_.value.code == 2
    error = capsys.readouterr().err.splitlines()[-1]  # after the usage lines
    assert "expected HOST:PORT such as 127.0.0.1:8765" in error and "not a URL" in error
    assert "auth" not in error.lower()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens here once the socket is closed


def test_a_dead_provider_is_named_and_the_corpus_not_blamed(
    data: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    monkeypatch.setenv("DEEPR_PROVIDER", "openai")
    monkeypatch.setenv("DEEPR_OPENAI_BASE_URL", url)
    monkeypatch.setenv("DEEPR_OPENAI_API_KEY", "sk-test")
    assert main([*data, "research", "--sample", "How were the first submarine cables insulated?"]) == 1
    captured = capsys.readouterr()
    assert f"provider unreachable: {url}/chat/completions" in captured.out
    assert f"provider unreachable: {url}" in captured.err.splitlines()[-1]
    assert "corpus holds no evidence" not in captured.out


def test_a_report_that_read_nothing_blames_the_corpus_only_when_the_run_finished() -> None:
    from deepr_mcp.research.engine import new_state

    state = new_state("What insulated the first cables?")
    assert "corpus holds no evidence" in render_report(state, "")
    stopped = render_report(state, "", partial_note="openai: provider unreachable: http://127.0.0.1:9/v1")
    assert "corpus holds no evidence" not in stopped and "stopped before it could finish" in stopped
