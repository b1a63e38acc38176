"""Run a bench script's measuring half under another checkout of the code, and read its JSON answer.

A before/after table (``pdf_artefacts``, ``html_furniture``) measures each side in a fresh process with that
checkout first on ``PYTHONPATH``; the script's ``--worker`` mode prints one JSON line, its last.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def measure_in(checkout: Path, script: str, *args: str, env: dict[str, str] | None = None) -> Any:
    """``python SCRIPT --worker ARGS`` with ``checkout`` as the code; the JSON of its last line of output."""
    done = subprocess.run(
        [sys.executable, str(Path(script).resolve()), "--worker", *args],
        cwd=checkout,  # not the bench's own checkout: the working directory would come first on sys.path
        env={**os.environ, **(env or {}), "PYTHONPATH": str(checkout)},
        capture_output=True,
        text=True,
        timeout=1800,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])
