from __future__ import annotations

from pathlib import Path

import pytest

from deepr_mcp.config import Settings


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
def settings(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    for key in [k for k in __import__("os").environ if k.startswith("DEEPR_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("DEEPR_CONFIG", "")
    return Settings(data_dir=data_dir)
