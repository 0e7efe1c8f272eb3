"""What a benchmark needs that may not be there: a Python module, a command, io_uring.

A missing requirement makes the result `skipped` with the reason and the one-line fix —
never a zero, never a crash. Kernels can also find out for themselves that something is
missing (io_uring blocked by seccomp): they exit with status 3 and say why on stderr.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

# Python modules and the package that provides each.
PACKAGES = {"zstandard": "zstandard", "compression.zstd": "Python 3.14's compression.zstd",
            "cryptography": "cryptography", "numpy": "numpy"}

IO_URING_SYSCTL = Path("/proc/sys/kernel/io_uring_disabled")


def missing(requirement: str) -> str | None:
    """None when the requirement is met; else the reason and the fix, on one line."""
    kind, _, name = requirement.partition(":")
    if kind == "module":
        if _module_exists(name):
            return None
        package = PACKAGES.get(name, name)
        return f"the Python module {name} is not installed: pip install {package}"
    if kind == "command":
        if shutil.which(name):
            return None
        return (f"{name} is not installed or not on PATH: install it "
                f"(Debian: apt-get install {name})")
    if kind == "io_uring":
        return _io_uring_disabled()
    raise ValueError(f"unknown requirement {requirement!r}")


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a parent package that is missing
        return False


def _io_uring_disabled() -> str | None:
    try:
        value = IO_URING_SYSCTL.read_text().strip()
    except OSError:
        return None  # an older kernel without the switch: the kernel itself will tell
    if value == "2":
        return ("io_uring is disabled by sysctl kernel.io_uring_disabled=2: "
                "sysctl -w kernel.io_uring_disabled=0 (as root) to measure it")
    return None


def first_missing(requirements: tuple[str, ...]) -> str | None:
    for requirement in requirements:
        reason = missing(requirement)
        if reason:
            return reason
    return None
