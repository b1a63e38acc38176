"""deepr-mcp demo runs non-interactively (as in CI) and every step does what it says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.servers import server_env


def test_demo_end_to_end(data_dir: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "deepr_mcp", "demo", "--answer-wait", "0.5"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=server_env(data_dir),
        timeout=300,
    )
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    for line in [
        "tools/list: ['tool_search', 'tool_call']",
        "ok: campaign_start is found",
        "ok: the sample was added when asked for",
        "Budget question from the server (elicitation/create)",
        "(no terminal: answering approve_override",
        "ok: both agents received pushed updates",
        "ok: spend stayed within the budget in force",
        "# Research report:",
        "artefacts: ['final_report.md'",
        "Every step did what it said.",
    ]:
        assert line in out, line
    assert "FAILED" not in out and "Traceback" not in proc.stderr


def test_demo_at_a_terminal_aborts_cleanly_and_never_draws_over_the_prompt(data_dir: Path) -> None:
    """A human at a terminal answers 'abort': a path the demo follows to its end (exit 0)."""
    import os
    import pty
    import select
    import time

    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "deepr_mcp", "demo"],
        stdin=child,
        stdout=child,
        stderr=child,  # a terminal has all three; input() writes its prompt to stderr
        env=server_env(data_dir),
        close_fds=True,
    )
    os.close(child)
    seen, answered = b"", None
    deadline = time.monotonic() + 150
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.2)
            if ready:
                try:
                    seen += os.read(main, 65536)
                except OSError:
                    break
            if answered is None and b"or 'abort': " in seen:
                time.sleep(1.5)  # campaign updates keep arriving while the human reads the prompt
                answered = len(seen)
                os.write(main, b"abort\n")
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)
    out = seen.decode("utf-8", "replace")
    assert answered is not None, out[-3000:]
    assert proc.returncode == 0, out[-3000:]
    prompt_end = out.index("or 'abort': ") + len("or 'abort': ")
    assert "[" not in out[prompt_end:answered]  # nothing drawn over the prompt while it waited
    assert "ok: the campaign stopped as asked, keeping a partial report" in out
    assert "ok: the partial report says it is partial" in out and "FAILED" not in out
