"""The standard tools, run beside osmark (`osmark run --with-reference`): fio for storage,
iperf3 for the network, perf bench for the scheduler. Each adapter runs its tool with the
same parameters as the osmark test and returns the figure in the test's unit, stored in
the result beside osmark's own, so every user can check osmark against what they trust.

A spec names its adapter as reference="MODULE:FUNCTION" (a module of this package); the
function is (spec, workdir, copies) -> Reference, or raises ReferenceUnavailable.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
from pathlib import Path

from osmark.catalog import Benchmark
from osmark.model import Reference

TIMEOUT_S = 300.0


class ReferenceUnavailable(Exception):
    """The tool is missing or failed; str() is the reason and the fix, on one line."""


def run_reference(spec: Benchmark, workdir: Path, copies: int) -> Reference | None:
    """The standard tool's figure for spec, or a Reference saying why there is none;
    None when no tool measures the same thing."""
    if spec.reference is None:
        return None
    module, _, function = spec.reference.partition(":")
    adapter = getattr(importlib.import_module(f"osmark.references.{module}"), function)
    try:
        return adapter(spec, workdir, copies)
    except ReferenceUnavailable as exc:
        return Reference(tool=module, command=[], value=None, unit=spec.unit, reason=str(exc))


def require(command: str, package: str | None = None) -> str:
    """The command's path, or ReferenceUnavailable with the install line."""
    path = shutil.which(command)
    if path is None:
        raise ReferenceUnavailable(f"{command} is not installed: apt-get install "
                                   f"{package or command}")
    return path


def run_tool(command: list[str], timeout: float = TIMEOUT_S) -> str:
    """Run a reference tool; its stdout, or ReferenceUnavailable with its complaint."""
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        raise ReferenceUnavailable(f"{command[0]} did not finish in {timeout:.0f} s") from None
    except OSError as exc:
        raise ReferenceUnavailable(f"{command[0]} could not start: {exc.strerror}") from None
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        raise ReferenceUnavailable(f"{command[0]} exited with status {proc.returncode}: "
                                   f"{lines[-1] if lines else 'no message'}")
    return proc.stdout


def tool_version(command: list[str]) -> str:
    """The first line a tool prints for its version, or "" if it prints none."""
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=10,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    return lines[0].strip() if lines else ""
