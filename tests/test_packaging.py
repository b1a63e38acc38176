"""The wheel users install: built from the tracked sources, carrying what the server needs at run time
(the dashboard HTML, the sample corpus, the licence) and nothing of the checkout's tests or tooling,
and runnable from a clean venv through its ``deepr-mcp`` script.

Built with ``pip wheel --no-build-isolation`` from a copy of the package's files in a temp dir, so
nothing is written into the checkout and nothing is downloaded.
"""

from __future__ import annotations

import email
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from deepr_mcp import __version__

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setuptools is not installed in this venv (pip install setuptools)")
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "deepr_mcp", source / "deepr_mcp", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), "."]
    subprocess.run(command, cwd=source, check=True, capture_output=True, timeout=300)
    (built,) = out.glob("deepr_mcp-*.whl")
    return built


def test_the_wheel_carries_the_run_time_files_and_complete_metadata(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"deepr_mcp-{__version__}.dist-info"
        metadata = email.message_from_bytes(archive.read(f"{info}/METADATA"))
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
    assert {"deepr_mcp/apps/campaign.html", "deepr_mcp/py.typed", f"{info}/licenses/LICENSE"} <= names
    assert any(n.startswith("deepr_mcp/data/samples/cables/") and n.endswith(".md") for n in names)
    assert not any(n.split("/")[0] in ("tests", "bench", "ui", "scripts") for n in names)
    assert metadata["Name"] == "deepr-mcp" and metadata["Version"] == __version__
    assert metadata["License-Expression"] == "MIT" and metadata["Requires-Python"] == ">=3.11"
    assert "Programming Language :: Python :: 3.11" in metadata.get_all("Classifier", [])
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert "# deepr-mcp" in metadata.get_payload()  # the README is the project page
    assert "deepr-mcp = deepr_mcp.cli:main" in entry_points
    urls = dict(url.split(", ", 1) for url in metadata.get_all("Project-URL", []))
    assert urls["Repository"] == "https://github.com/deepr-mcp/deepr-mcp" and set(urls) >= {"Homepage", "Issues"}
    registry_name = json.loads((ROOT / "server.json").read_text())["name"]  # PyPI ownership proof for the registry
    assert f"mcp-name: {registry_name}" in metadata.get_payload()
    requires = metadata.get_all("Requires-Dist", [])
    assert not any(r.split(";")[0].strip().startswith(("torch", "nvidia")) for r in requires if "extra ==" not in r)


def test_the_installed_script_answers_help_and_version(wheel: Path, tmp_path: Path) -> None:
    """A clean venv with only the wheel (no dependencies): --help and --version need none of them."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q"]
    subprocess.run([*install, str(wheel)], check=True, capture_output=True, timeout=300)
    script = env_dir / "bin" / "deepr-mcp"
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the wheel's code, not a checkout's
    run = {"capture_output": True, "text": True, "timeout": 60, "check": True, "env": clean, "cwd": tmp_path}
    located = subprocess.run([str(python), "-c", "import deepr_mcp; print(deepr_mcp.__file__)"], **run)
    assert located.stdout.startswith(str(env_dir))
    version = subprocess.run([str(script), "--version"], **run)
    assert version.stdout.strip() == f"deepr-mcp {__version__}"
    usage = subprocess.run([str(script), "--help"], **run)
    assert usage.stdout.startswith("usage: deepr-mcp") and "serve" in usage.stdout
