from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from deepr_mcp.config import Settings
from tests.samples import with_sample


def pytest_configure(config: pytest.Config) -> None:
    """Give this run a temp root of its own unless one was asked for.

    pytest's shared /tmp/pytest-of-USER keeps only the last three runs' folders, so a run started
    alongside (another checkout on the same machine, same user) deleted this run's data dirs
    mid-test: 134 errors in one run here.
    """
    if config.option.basetemp is None:
        config.option.basetemp = tempfile.mkdtemp(prefix="deepr-pytest-")
        config.add_cleanup(lambda: shutil.rmtree(config.option.basetemp, ignore_errors=True))


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A fresh data dir holding the bundled sample corpus, added explicitly as a user would before a
    first campaign (an empty corpus refuses campaigns); ``empty_data_dir`` is one with nothing in it."""
    path = tmp_path / "data"
    path.mkdir()
    return with_sample(path)


@pytest.fixture
def empty_data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "empty"
    path.mkdir()
    return path


@pytest.fixture
def settings(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    for key in [k for k in __import__("os").environ if k.startswith("DEEPR_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("DEEPR_CONFIG", "")
    return Settings(data_dir=data_dir)
