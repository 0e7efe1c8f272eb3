"""Test set-up: every test run gets its own data directory; kernels compile once per session."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

_SESSION_ROOT = Path(tempfile.mkdtemp(prefix="osmark-tests-"))
os.environ["OSMARK_CACHE_DIR"] = str(_SESSION_ROOT / "cache")
os.environ["OSMARK_DATA_DIR"] = str(_SESSION_ROOT / "data")


@pytest.fixture()
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "data"
    monkeypatch.setenv("OSMARK_DATA_DIR", str(path))
    return path


@pytest.fixture()
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path
