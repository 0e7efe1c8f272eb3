"""The Result model: typed structs, the versioned JSON file, loading with clear errors.

A result file holds one run on one host. Files are the source of truth; everything
else (tables, comparisons, indexes) is derived from them. Unknown fields are an error:
a file that does not match this model is rejected on load with one clear line.
Older schema versions are upgraded on load by the explicit steps in UPGRADES.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import msgspec

from osmark.files import write_atomically

SCHEMA_VERSION = 4

Status = Literal["ok", "skipped", "failed"]
# quiet: nothing else used the machine; noisy: something did (the reason names it);
# invalid: the figure cannot be trusted; unknown: no monitor ran (imports, schema 1).
Quality = Literal["quiet", "noisy", "invalid", "unknown"]
QUALITY_ORDER: tuple[str, ...] = ("quiet", "unknown", "noisy", "invalid")


class Struct(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=False):
    pass


class Tool(Struct):
    name: str
    version: str


class Source(Struct):
    """Where an imported run came from (absent for runs osmark measured itself)."""

    format: str  # "unixbench-text", "pts-composite"
    file: str  # the imported file, as given
    label: str | None = None  # the system's name in that file (PTS identifier, UB heading)


class RunInfo(Struct):
    id: str
    started: str
    ended: str | None
    complete: bool
    suite: str
    argv: list[str]
    quality: Quality = "unknown"  # the worst quality among the run's results
    source: Source | None = None  # set on imported runs


class Identity(Struct):
    """What decides whether two results are comparable: differ here, and compare says so."""

    cpu_model: str
    cpus: int
    memory_gib: float  # MemTotal rounded to 0.5 GiB: the same machine reports the same
    kernel: str
    arch: str
    os: str
    virtualization: str  # "none", "kvm", "firecracker", "docker", … or "unknown"
    compiler: str | None
    compiler_version: str | None
    cflags: list[str]
    osmark_version: str


class Description(Struct):
    """What describes the host without deciding comparability."""

    hostname: str
    cpus_usable: int
    memory_bytes: int
    python: str
    tags: dict[str, str] = msgspec.field(default_factory=dict)


class Host(Struct):
    identity: Identity
    description: Description
    # The full `osmark info` record: metadata, free-form, so new probes need no new schema.
    info: dict[str, Any] = msgspec.field(default_factory=dict)


class Reference(Struct):
    """The standard tool's figure for the same measurement (`osmark run --with-reference`)."""

    tool: str  # "fio 3.33", "iperf3 3.12", "perf bench"
    command: list[str]
    value: float | None  # in the result's unit; None when the tool could not run
    unit: str
    reason: str | None = None  # why there is no value


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
    pinned: bool = False  # osmark pinned copy i to CPU i (children inherit the pin)
    quality: Quality = "unknown"
    quality_reason: str | None = None
    noisy_samples: int = 0  # samples during which something else used the machine
    retaken: int = 0  # noisy samples discarded and taken again (--retake-noisy)
    tolerance: float = 0.01
    samples: list[float] = msgspec.field(default_factory=list)
    ops_per_sample: int | None = None
    seconds: float | None = None
    baseline: float | None = None
    index: float | None = None
    # What the kernel said about how it measured (last sample): {"direct": 0} when the
    # filesystem refused O_DIRECT, {"engine": "threads"}, {"lost": 12} …
    details: dict[str, Any] = msgspec.field(default_factory=dict)
    reference: Reference | None = None


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


def _upgrade_1_to_2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 2 split the flat host record into identity and description, and added
    quality labels (schema-1 results had no noise monitor: their quality is unknown)."""
    old = dict(data.get("host") or {})
    memory = old.get("memory_bytes", 0)
    data["host"] = {
        "identity": {
            "cpu_model": old.get("cpu_model", "unknown"),
            "cpus": old.get("cpus", 0),
            "memory_gib": memory_gib(memory),
            "kernel": old.get("kernel", "unknown"),
            "arch": old.get("arch", "unknown"),
            "os": old.get("os", "unknown"),
            "virtualization": "unknown",
            "compiler": old.get("compiler"),
            "compiler_version": old.get("compiler_version"),
            "cflags": old.get("cflags", []),
            "osmark_version": (data.get("tool") or {}).get("version", "unknown"),
        },
        "description": {
            "hostname": old.get("hostname", "unknown"),
            "cpus_usable": old.get("cpus_usable", old.get("cpus", 0)),
            "memory_bytes": memory,
            "python": old.get("python", "unknown"),
        },
    }
    data["schema_version"] = 2
    return data


def _upgrade_2_to_3(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 3 added run.source, the origin of imported runs; older runs were measured."""
    run = data.get("run")
    if isinstance(run, dict):
        run.setdefault("source", None)
    data["schema_version"] = 3
    return data


def _upgrade_3_to_4(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 4 added per-result `details` (how the kernel measured) and `reference` (the
    standard tool's figure); older results have neither."""
    for result in data.get("results") or []:
        if isinstance(result, dict):
            result.setdefault("details", {})
            result.setdefault("reference", None)
    data["schema_version"] = 4
    return data


# Upgrade steps: UPGRADES[n] turns a schema-n dict into a schema-(n+1) dict.
UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: _upgrade_1_to_2,
    2: _upgrade_2_to_3,
    3: _upgrade_3_to_4,
}


def memory_gib(memory_bytes: int) -> float:
    return round(memory_bytes / 2**30 * 2) / 2


def worst_quality(qualities: list[str]) -> str:
    return max(qualities, key=QUALITY_ORDER.index, default="unknown")


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
    return write_atomically(path, dumps(result))
