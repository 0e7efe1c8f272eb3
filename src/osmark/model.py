"""The Result model: typed structs, the versioned JSON file, loading with clear errors.

A result file holds one run on one host. Files are the source of truth; everything
else (tables, comparisons, indexes) is derived from them. Unknown fields are an error:
a file that does not match this model is rejected on load with one clear line.
Older schema versions are upgraded on load by the explicit steps in UPGRADES.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import msgspec

SCHEMA_VERSION = 1

Status = Literal["ok", "skipped", "failed"]


class Struct(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=False):
    pass


class Tool(Struct):
    name: str
    version: str


class RunInfo(Struct):
    id: str
    started: str
    ended: str | None
    complete: bool
    suite: str
    argv: list[str]


class Host(Struct):
    hostname: str
    cpu_model: str
    cpus: int
    cpus_usable: int
    memory_bytes: int
    kernel: str
    os: str
    arch: str
    python: str
    compiler: str | None
    compiler_version: str | None
    cflags: list[str]


class BenchResult(Struct):
    id: str
    title: str
    category: str
    version: int
    copies: int
    status: Status
    reason: str | None
    unit: str
    higher_is_better: bool
    median: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    mad: float | None = None
    min: float | None = None
    max: float | None = None
    n: int = 0
    converged: bool = False
    tolerance: float = 0.01
    samples: list[float] = msgspec.field(default_factory=list)
    ops_per_sample: int | None = None
    seconds: float | None = None
    baseline: float | None = None
    index: float | None = None


class Score(Struct):
    copies: int
    index: float | None
    partial: bool
    tests: int


class ResultFile(Struct):
    schema_version: int
    tool: Tool
    run: RunInfo
    host: Host
    results: list[BenchResult]
    scores: list[Score]


class ResultFileError(Exception):
    """A result file that cannot be used; str() is the one line to show the user."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = str(path)
        self.problem = problem


# Upgrade steps: UPGRADES[n] turns a schema-n dict into a schema-(n+1) dict.
UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    version = data.get("schema_version")
    while version != SCHEMA_VERSION:
        data = UPGRADES[version](data)
        version = data["schema_version"]
    return data


def parse(raw: bytes, source: Path | str) -> ResultFile:
    """Validate raw JSON bytes as a result file; raise ResultFileError with one clear line."""
    if not raw.strip():
        raise ResultFileError(source, "the file is empty: not an osmark result")
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResultFileError(source, f"not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ResultFileError(source, "expected a JSON object at the top level")
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ResultFileError(source, "schema_version: missing or not an integer")
    if version > SCHEMA_VERSION:
        raise ResultFileError(
            source,
            f"schema_version {version} is newer than this osmark understands "
            f"({SCHEMA_VERSION}): upgrade osmark",
        )
    if version < 1 or (version < SCHEMA_VERSION and version not in UPGRADES):
        raise ResultFileError(source, f"schema_version {version} is not a known version")
    try:
        return msgspec.convert(upgrade(data), ResultFile)
    except msgspec.ValidationError as exc:
        # msgspec says "Expected `int`, got `str` - at `$.results[3].n`": reorder to path first.
        message = str(exc)
        if " - at `$." in message:
            what, where = message.rsplit(" - at `$.", 1)
            message = f"{where.rstrip('`')}: {what[0].lower()}{what[1:]}"
        raise ResultFileError(source, message) from None


def load(path: Path | str) -> ResultFile:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ResultFileError(path, "no such file") from None
    except IsADirectoryError:
        raise ResultFileError(path, "is a directory, not a result file") from None
    except OSError as exc:
        raise ResultFileError(path, f"cannot read ({exc.strerror})") from None
    return parse(raw, path)


def dumps(result: ResultFile) -> bytes:
    return msgspec.json.format(msgspec.json.encode(result), indent=2) + b"\n"


def save(result: ResultFile, path: Path | str) -> Path:
    """Write atomically: readers see the old file or the whole new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(dumps(result))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
