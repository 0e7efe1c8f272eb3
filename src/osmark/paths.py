"""Where osmark keeps its files: XDG base directories, overridable for tests and CI."""

from __future__ import annotations

import os
from pathlib import Path


def _xdg(env_var: str, default: str) -> Path:
    value = os.environ.get(env_var)
    return Path(value) if value else Path.home() / default


def data_dir() -> Path:
    """Result files live here (OSMARK_DATA_DIR, else $XDG_DATA_HOME/osmark)."""
    override = os.environ.get("OSMARK_DATA_DIR")
    if override:
        return Path(override)
    return _xdg("XDG_DATA_HOME", ".local/share") / "osmark"


def cache_dir() -> Path:
    """Compiled kernels live here (OSMARK_CACHE_DIR, else $XDG_CACHE_HOME/osmark)."""
    override = os.environ.get("OSMARK_CACHE_DIR")
    if override:
        return Path(override)
    return _xdg("XDG_CACHE_HOME", ".cache") / "osmark"


def results_dir() -> Path:
    return data_dir() / "results"
