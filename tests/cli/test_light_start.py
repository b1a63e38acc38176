"""``--help``, ``--version`` and a usage error load only the standard library and the CLI itself.

The SDK, pydantic and the settings cost over a second of CPU to import; a user asking for help
should not wait for them (bench/cold_start.py measures the time; this checks the cause).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("mcp", "mcp_types", "pydantic", "pydantic_settings", "anyio", "aiohttp", "numpy", "deepr_mcp.config")

PROBE = """
import contextlib, io, json, sys
from deepr_mcp.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
heavy = sorted(m for m in {heavy!r} if m in sys.modules)
print(json.dumps({{"code": code, "heavy": heavy, "out": out.getvalue()}}))
"""


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["serve", "--help"], ["no-such-command"]])
def test_help_and_version_import_nothing_heavy(argv: list[str]) -> None:
    probe = PROBE.format(heavy=HEAVY)
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, timeout=60, check=True)
    result = json.loads(done.stdout)
    assert result["heavy"] == [], f"{argv} imported {result['heavy']}"
    if argv == ["--version"]:
        assert result["code"] == 0 and result["out"].startswith("deepr-mcp ")
    elif argv[-1] == "--help":
        assert result["code"] == 0 and "usage: deepr-mcp" in result["out"]
    else:
        assert result["code"] == 2
