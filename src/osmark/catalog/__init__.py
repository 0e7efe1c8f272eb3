"""The catalog: what osmark can measure, as data. Specs never run or print anything.

A benchmark is a native kernel invoked as `KERNEL MODE ITERATIONS PARAM...`; the engine
turns its reported (ops, seconds) into a value in the spec's unit:
  rate:    value = ops / seconds * scale   (higher is better)
  latency: value = seconds / ops * 1e9     (nanoseconds per op, lower is better)
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
    kind: Literal["rate", "latency"] = "rate"
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

    @property
    def higher_is_better(self) -> bool:
        return self.kind == "rate"

    @property
    def needs_workdir(self) -> bool:
        return any("{workdir}" in p for p in self.params) or self.kernel == "looper"

    @property
    def short_name(self) -> str:
        return self.id.split(".", 1)[1]

    @property
    def required_cpus(self) -> int:
        return 2 if self.pin == "cross" else 1

    @property
    def kernels(self) -> tuple[str, ...]:
        """Every compiled kernel this benchmark needs: its own and those in {kernel:…}."""
        extra = tuple(
            p[len("{kernel:") : -1] for p in self.params if p.startswith("{kernel:")
        )
        return (self.kernel, *extra)


def _all() -> list[Benchmark]:
    from osmark.catalog import oscost, unixbench

    return [*unixbench.BENCHMARKS, *oscost.BENCHMARKS]


BENCHMARKS: list[Benchmark] = _all()
BY_ID: dict[str, Benchmark] = {b.id: b for b in BENCHMARKS}

SUITE_HELP: dict[str, str] = {
    "index": "the 12 tests of UnixBench's System Benchmarks Index",
    "ub": "every UnixBench-compatible test, index and non-index",
    "costs": "the OS cost card (also `osmark costs`)",
    "all": "everything",
}


def suite_members(name: str) -> list[Benchmark]:
    if name == "all":
        return list(BENCHMARKS)
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
