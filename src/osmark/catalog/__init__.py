"""The catalog: what osmark can measure, as data. Specs never run or print anything.

A benchmark is a kernel invoked as `KERNEL MODE ITERATIONS PARAM...`: a native C program
(kernels/*.c), or a Python one (`kernel="py:NAME"`, osmark.pykernels) for work that is
already native (zlib, hashlib, sqlite3). Both speak the protocol of kernels/common.h. The
engine turns each copy's reported (ops, seconds[, value]) into a value in the spec's unit:
  rate:     value = Σ copies ops / seconds * scale   (higher is better)
  latency:  value = median of copies' seconds / ops * 1e9 (ns per op, lower is better)
  reported: value = the mean of the copies' own "value" * scale (a percentile, a
            duration): `better` says which way is better
Params may hold placeholders the engine fills in per sample: {workdir} (a scratch
directory inside the run's workdir), {shell} (the shell-test scripts), {kernel:NAME}
(the path of another compiled kernel), {cpu_a} and {cpu_b} (CPUs to pin to).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class Benchmark:
    id: str
    title: str
    category: str
    unit: str
    kernel: str
    mode: str
    params: tuple[str, ...] = ()
    kind: Literal["rate", "latency", "reported"] = "rate"
    better: Literal["higher", "lower"] | None = None  # default: rate higher, latency lower
    scale: float = 1.0
    baseline: float | None = None
    tolerance: float = 0.01
    suites: tuple[str, ...] = ()
    version: int = 1
    max_copies: int | None = None
    pin: Literal["same", "cross"] | None = None  # CPUs the kernel pins its processes to
    # "pinned": the engine pins copy i (and all it forks) to CPU i unless --no-pin;
    # "free": the scheduler places everything (tests that are parallel within one copy).
    placement: Literal["pinned", "free"] = "pinned"
    env: dict[str, str] = field(default_factory=dict)
    timed: str = ""  # what is inside the timed region, for `osmark list` and the docs
    # What must be there, else the result is `skipped` with the fix (see requirements.py):
    # "module:NAME" (a Python module), "command:NAME" (on PATH), "io_uring".
    requires: tuple[str, ...] = ()
    writes_bytes: int = 0  # the most one copy writes in the workdir (free-space check)
    note: str = ""  # a rule the output must state (STREAM's byte counting, O_DIRECT …)
    reference: str | None = None  # "MODULE:FUNCTION" in osmark.references: the standard tool

    @property
    def higher_is_better(self) -> bool:
        if self.better is not None:
            return self.better == "higher"
        return self.kind == "rate"

    @property
    def native(self) -> bool:
        """A compiled C kernel (else a Python kernel, `py:NAME`)."""
        return not self.kernel.startswith("py:")

    @property
    def needs_workdir(self) -> bool:
        return any("{workdir}" in p for p in self.params) or self.writes_bytes > 0

    @property
    def short_name(self) -> str:
        return self.id.split(".", 1)[1]

    @property
    def required_cpus(self) -> int:
        return 2 if self.pin == "cross" else 1

    @property
    def kernels(self) -> tuple[str, ...]:
        """Every compiled kernel this benchmark needs: its own (if native) and those in
        {kernel:…}."""
        extra = tuple(
            p[len("{kernel:") : -1] for p in self.params if p.startswith("{kernel:")
        )
        return ((self.kernel,) if self.native else ()) + extra


def _all() -> list[Benchmark]:
    from osmark.catalog import cpu, memory, network, oscost, storage, unixbench, uring

    return [*unixbench.BENCHMARKS, *oscost.BENCHMARKS, *uring.BENCHMARKS, *memory.BENCHMARKS,
            *storage.BENCHMARKS, *cpu.BENCHMARKS, *network.BENCHMARKS]


BENCHMARKS: list[Benchmark] = _all()
BY_ID: dict[str, Benchmark] = {b.id: b for b in BENCHMARKS}

SUITE_HELP: dict[str, str] = {
    "quick": "a first look in about a minute: a few representative tests of each area",
    "index": "the 12 tests of UnixBench's System Benchmarks Index",
    "full": "everything",
    "os": "what the operating system costs: the cost card and io_uring batching",
    "memory": "STREAM bandwidth, load latency by working-set size, memcpy by block size",
    "storage": "the --workdir's disk: sequential and random I/O, fsync, small files, SQLite",
    "cpu": "compression, hashing, crypto, scheduler stress, a parallel build, FFT, matmul",
    "network": "loopback TCP and UDP: throughput, latency, connection rate, packet rate",
    "ub": "every UnixBench-compatible test, index and non-index",
    "costs": "the OS cost card (also `osmark costs`)",
    "all": "everything (the same as full)",
}

# Per-test time budget (seconds) when a run names only these suites and no --budget: the
# big suites trade a little precision for finishing in their promised time.
SUITE_BUDGET: dict[str, float] = {"quick": 3.0, "full": 5.0, "all": 5.0}
DEFAULT_BUDGET = 10.0
# The quick look takes shorter samples, so that its few seconds per test still hold the
# 6 samples a CI of the median needs.
SUITE_SAMPLE_TIME: dict[str, float] = {"quick": 0.1}
DEFAULT_SAMPLE_TIME = 0.25


def budget_for(names: list[str]) -> float:
    """The default --budget for a run of these suites/tests: the smallest suite budget."""
    budgets = [SUITE_BUDGET[n] for n in names if n in SUITE_BUDGET]
    return min(budgets) if budgets else DEFAULT_BUDGET


def sample_time_for(names: list[str]) -> float:
    """The default --sample-time for a run of these suites/tests."""
    times = [SUITE_SAMPLE_TIME[n] for n in names if n in SUITE_SAMPLE_TIME]
    return min(times) if times else DEFAULT_SAMPLE_TIME


def suite_members(name: str) -> list[Benchmark]:
    if name in ("all", "full"):
        return list(BENCHMARKS)
    if name == "os":  # the cost card belongs to the OS area too
        return [b for b in BENCHMARKS if "os" in b.suites or "costs" in b.suites]
    return [b for b in BENCHMARKS if name in b.suites]


class UnknownBenchmark(Exception):
    """A name that is neither a suite, a test id nor a short name; str() says what is."""


def resolve(names: list[str]) -> list[Benchmark]:
    """Suites, ids and short names (`syscall` is ub.syscall) to benchmarks, in catalog order.

    A short name that several tests share resolves to the UnixBench test of that name
    (`syscall` -> ub.syscall; the cost card's is os.syscall).
    """
    chosen: set[str] = set()
    for name in names:
        if name in SUITE_HELP:
            chosen.update(b.id for b in suite_members(name))
        elif name in BY_ID:
            chosen.add(name)
        else:
            matches = [b for b in BENCHMARKS if b.short_name == name]
            if len(matches) > 1:
                matches = [b for b in matches if b.id.startswith("ub.")] or matches
            if len(matches) != 1:
                raise UnknownBenchmark(
                    f"unknown test or suite {name!r}: `osmark list` shows the ids and suites"
                )
            chosen.add(matches[0].id)
    return [b for b in BENCHMARKS if b.id in chosen]
