"""deepr-mcp demo runs non-interactively (as in CI) and every step does what it says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support import server_env


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
