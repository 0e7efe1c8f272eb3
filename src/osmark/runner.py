"""Runs a selection of benchmarks at one or more copy counts and assembles the Result.

Like UnixBench, the whole list runs once per copy count (1 copy, then N copies).
On Ctrl-C or SIGTERM the kernels are killed, scratch files removed, and the finished
tests come back in a Result marked complete: false (raised as RunInterrupted).
"""

from __future__ import annotations

import os
import platform
import secrets
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from osmark import __version__, engine, scoring, sysinfo
from osmark.catalog import Benchmark
from osmark.kernels.build import CompilerMissing, Toolchain, find_toolchain
from osmark.model import (
    SCHEMA_VERSION,
    BenchResult,
    Description,
    Host,
    Identity,
    ResultFile,
    RunInfo,
    Tool,
    memory_gib,
    worst_quality,
)
from osmark.sysinfo import usable_cpus

ResultCallback = Callable[[BenchResult, int, int], None]


class RunInterrupted(Exception):
    def __init__(self, partial: ResultFile) -> None:
        super().__init__("interrupted")
        self.partial = partial


def default_copies() -> list[int]:
    """1 copy, then one per usable CPU (UnixBench's default), or just 1 on one CPU."""
    cpus = usable_cpus()
    return [1, cpus] if cpus > 1 else [1]


def plan(benchmarks: list[Benchmark], copies: list[int]) -> list[tuple[Benchmark, int]]:
    """(benchmark, copies) pairs in run order; single-copy tests run once, at 1 copy."""
    pairs: list[tuple[Benchmark, int]] = []
    for count in copies:
        for spec in benchmarks:
            if spec.max_copies is None:
                pairs.append((spec, count))
    pairs.extend((spec, 1) for spec in benchmarks if spec.max_copies is not None)
    return pairs


# Per test and copy count, beyond the budget: compiling a kernel the first time, the last
# sample that starts just inside the budget, process start-up.
PER_TEST_OVERHEAD_S = 1.0


def duration_bound(pairs: list[tuple[Benchmark, int]], budget: float) -> float:
    """The most a run of these pairs can take: every test spends its whole budget."""
    return len(pairs) * (budget + PER_TEST_OVERHEAD_S)


def host_record(toolchain: Toolchain | CompilerMissing, workdir: Path | None,
                tags: dict[str, str] | None = None) -> Host:
    """The host: identity (decides comparability), description, and the full info record."""
    compiled = isinstance(toolchain, Toolchain)
    info = sysinfo.collect_info(workdir, toolchain if compiled else None)
    memory = sysinfo.memory_bytes()
    return Host(
        identity=Identity(
            cpu_model=sysinfo.cpu_model(),
            cpus=os.cpu_count() or 1,
            memory_gib=memory_gib(memory),
            kernel=platform.release(),
            arch=platform.machine(),
            os=sysinfo.os_name(),
            virtualization=sysinfo.virtualization_label(info),
            compiler=" ".join(toolchain.command) if compiled else None,
            compiler_version=toolchain.version if compiled else None,
            cflags=list(toolchain.cflags) if compiled else [],
            osmark_version=__version__,
        ),
        description=Description(
            hostname=socket.gethostname(),
            cpus_usable=usable_cpus(),
            memory_bytes=memory,
            python=sys.version.split()[0],
            tags=dict(tags or {}),
        ),
        info=info,
    )


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def new_run_id() -> str:
    host = socket.gethostname().split(".")[0] or "host"
    return f"{time.strftime('%Y%m%dT%H%M%S')}-{host}-{secrets.token_hex(2)}"


def execute(pairs: list[tuple[Benchmark, int]], settings: engine.Settings,
            workdir: Path | None, suite: str, argv: list[str],
            on_progress: engine.ProgressCallback | None = None,
            on_result: ResultCallback | None = None,
            tags: dict[str, str] | None = None) -> ResultFile:
    try:
        toolchain: Toolchain | CompilerMissing = find_toolchain()
    except CompilerMissing as exc:
        toolchain = exc
    own_workdir = workdir is None
    root = Path(tempfile.mkdtemp(prefix="osmark-")) if own_workdir else workdir
    try:
        result = ResultFile(
            schema_version=SCHEMA_VERSION,
            tool=Tool(name="osmark", version=__version__),
            run=RunInfo(id=new_run_id(), started=_now(), ended=None, complete=False,
                        suite=suite, argv=argv),
            host=host_record(toolchain, root, tags),
            results=[],
            scores=[],
        )
        try:
            for position, (spec, copies) in enumerate(pairs, start=1):
                bench = engine.run_benchmark(spec, copies, toolchain, root, settings,
                                             on_progress)
                bench.index = scoring.test_index(bench)
                result.results.append(bench)
                if on_result:
                    on_result(bench, position, len(pairs))
            result.run.complete = True
        except KeyboardInterrupt:
            engine.kill_live_kernels()
            raise RunInterrupted(_finish(result)) from None
    finally:
        if own_workdir:
            shutil.rmtree(root, ignore_errors=True)
    return _finish(result)


def _finish(result: ResultFile) -> ResultFile:
    result.run.ended = _now()
    result.run.quality = worst_quality([r.quality for r in result.results if r.status == "ok"])
    result.scores = scoring.scores(result.results)
    return result
