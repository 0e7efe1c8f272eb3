"""Runs one benchmark at one copy count: calibrate, warm up, sample, stop.

A sample is one kernel process per copy, all started together behind a start barrier,
each running a calibrated number of loop units. The timed region is inside the C kernel
(after the barrier, around the loop only); process start-up, set-up and exit are not in
it. Sampling stops when the 95 % CI of the median is within the benchmark's tolerance
(at least MIN_SAMPLES samples), or when the time budget is spent (converged: false).
The engine never prints: it reports progress through a callback between samples.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from osmark import monitor, stats
from osmark.catalog import Benchmark
from osmark.kernels.build import (
    BuildFailed,
    CompilerMissing,
    Toolchain,
    kernel_binary,
    shell_script_dir,
)
from osmark.model import BenchResult
from osmark.requirements import first_missing
from osmark.sysinfo import usable_cpu_ids

MIN_SAMPLES = 5
MAX_SAMPLES = 300
MAX_CALIBRATION_STEPS = 30
READY_TIMEOUT = 60.0


@dataclass(frozen=True)
class Settings:
    budget: float = 10.0  # wall seconds per benchmark and copy count, calibration included
    sample_time: float = 0.25  # seconds one sample's timed loop aims at
    min_samples: int = MIN_SAMPLES
    kernel_timeout: float = 60.0  # a kernel process still running past this is killed
    pin: bool = True  # pin copy i to CPU i (tests whose placement is "pinned")
    retake_noisy: bool = False  # discard samples taken while the machine was noisy
    with_reference: bool = False  # also run the standard tool (fio, iperf3, perf bench)


@dataclass
class Progress:
    """What the live display shows; sent between samples, never while a kernel times."""

    benchmark: Benchmark
    copies: int
    phase: str  # "calibrating", "warm-up", "sampling", "done"
    samples: list[float] = field(default_factory=list)
    median: float | None = None
    ci: tuple[float, float] | None = None
    noisy: int = 0  # samples so far taken while something else used the machine


ProgressCallback = Callable[[Progress], None]


class KernelError(Exception):
    """A kernel process failed; str() is the reason recorded in the result."""


class KernelUnsupported(KernelError):
    """The kernel found that this system cannot run it (exit status 3): a skip, not a
    failure. str() is the kernel's reason."""


# Protocol exit status of a kernel that cannot run here (io_uring blocked, no O_DIRECT …).
EXIT_UNSUPPORTED = 3


@dataclass(frozen=True)
class KernelOutput:
    ops: int
    seconds: float
    check: int
    value: float | None = None  # the kernel's own figure, for kind "reported"
    details: dict = field(default_factory=dict)  # any other keys: how it measured


# Kernel processes alive right now, so an interrupt can kill every one of them.
_live: set[subprocess.Popen] = set()


def kill_live_kernels() -> None:
    for proc in list(_live):
        _kill_group(proc)


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # the kernel and anything it forked
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream:
            with contextlib.suppress(OSError):
                stream.close()
    _live.discard(proc)


def _await_ready(proc: subprocess.Popen, deadline: float) -> bytes:
    """Read up to the kernel's "ready" line; return any bytes that came after it."""
    buffer = b""
    fd = proc.stdout.fileno()
    while b"ready\n" not in buffer:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise KernelError(f"kernel did not get ready within {READY_TIMEOUT:.0f} s")
        readable, _, _ = select.select([fd], [], [], remaining)
        if not readable:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            _, err = proc.communicate()
            _raise_for_exit(proc.returncode, err)
        buffer += chunk
    return buffer.split(b"ready\n", 1)[1]


def _raise_for_exit(returncode: int | None, stderr: bytes) -> None:
    """A kernel that ended without a result: unsupported here (exit 3, a skip) or failed."""
    if returncode == EXIT_UNSUPPORTED:
        lines = stderr.decode(errors="replace").strip().splitlines()
        raise KernelUnsupported(lines[-1] if lines else "not supported on this system")
    raise KernelError(_failure_text(returncode, stderr))


def _failure_text(returncode: int | None, stderr: bytes) -> str:
    lines = [line for line in stderr.decode(errors="replace").splitlines() if line.strip()]
    detail = lines[-1].strip() if lines else "no message"
    if returncode is not None and returncode < 0:
        return f"kernel killed by signal {-returncode}: {detail}"
    return f"kernel exited with status {returncode}: {detail}"


def _parse_output(stdout: bytes) -> KernelOutput:
    for line in reversed(stdout.decode(errors="replace").splitlines()):
        if line.startswith("{"):
            try:
                data = json.loads(line)
                ops, seconds = int(data["ops"]), float(data["seconds"])
            except (ValueError, KeyError, TypeError):
                break
            if ops < 1 or not seconds > 0:
                raise KernelError(f"kernel reported ops={ops}, seconds={seconds}")
            value = data.get("value")
            details = {k: v for k, v in data.items()
                       if k not in ("ops", "seconds", "check", "value")}
            return KernelOutput(ops, seconds, int(data.get("check", 0)),
                                None if value is None else float(value), details)
    raise KernelError("kernel printed no result line")


def _pin_to(cpu: int) -> Callable[[], None]:
    # Runs in the child between fork and exec, so the kernel and all it forks inherit it.
    return lambda: os.sched_setaffinity(0, {cpu})


def run_kernel(argv: list[str], copies: int, env: dict[str, str], cwd: Path | None,
               timeout: float, cpus: list[int] | None = None) -> list[KernelOutput]:
    """Start `copies` processes, release them together, collect one output from each.

    With `cpus`, copy i is pinned to cpus[i % len(cpus)] before it execs.
    """
    procs: list[subprocess.Popen] = []
    leftovers: list[bytes] = []
    full_env = {**os.environ, **env, "OSMARK_SYNC": "1"}
    try:
        for copy in range(copies):
            proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=full_env, cwd=cwd, start_new_session=True,
                preexec_fn=_pin_to(cpus[copy % len(cpus)]) if cpus else None,
            )
            _live.add(proc)
            procs.append(proc)
        ready_deadline = time.monotonic() + READY_TIMEOUT
        leftovers = [_await_ready(proc, ready_deadline) for proc in procs]
        for proc in procs:  # the start signal: one byte each, as close together as we can
            proc.stdin.write(b"g")
            proc.stdin.flush()
        for proc in procs:
            proc.stdin.close()
            proc.stdin = None  # communicate() must not touch it again
        deadline = time.monotonic() + timeout
        outputs = []
        for proc, leftover in zip(procs, leftovers, strict=True):
            try:
                out, err = proc.communicate(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                raise KernelError(f"kernel timed out after {timeout:.0f} s and was killed") \
                    from None
            if proc.returncode != 0:
                _raise_for_exit(proc.returncode, err)
            outputs.append(_parse_output(leftover + out))
        return outputs
    finally:
        for proc in procs:
            _kill_group(proc)


def _cpu_pins(spec: Benchmark) -> tuple[int, int] | str:
    usable = usable_cpu_ids()
    if spec.pin == "cross":
        if len(usable) < 2:
            return (f"only one CPU is usable by osmark (CPU {usable[0]}): a round trip "
                    "between two CPUs cannot be measured here")
        return usable[0], usable[1]
    return usable[0], usable[0]


def _argv(spec: Benchmark, program: list[str], iterations: int,
          subs: dict[str, str]) -> list[str]:
    params = []
    for param in spec.params:
        for key, value in subs.items():
            param = param.replace("{" + key + "}", value)
        params.append(param)
    return [*program, spec.mode, str(iterations), *params]


def python_kernel(name: str) -> list[str]:
    """The command of a Python kernel: this interpreter, so its modules are the ones seen."""
    return [sys.executable, "-m", "osmark.pykernels", name]


def _value(spec: Benchmark, outputs: list[KernelOutput]) -> float:
    if spec.kind == "rate":
        return sum(o.ops / o.seconds for o in outputs) * spec.scale
    if spec.kind == "reported":
        values = [o.value for o in outputs]
        if any(v is None for v in values):
            raise KernelError("kernel reported no value")
        return stats.mean([v for v in values if v is not None]) * spec.scale
    return stats.median([o.seconds / o.ops * 1e9 for o in outputs])


def _empty_result(spec: Benchmark, copies: int, status: str, reason: str) -> BenchResult:
    return BenchResult(
        id=spec.id, title=spec.title, category=spec.category, version=spec.version,
        copies=copies, status=status, reason=reason, unit=spec.unit,
        higher_is_better=spec.higher_is_better, tolerance=spec.tolerance,
        baseline=spec.baseline,
    )


def run_benchmark(spec: Benchmark, copies: int, toolchain: Toolchain | CompilerMissing,
                  workdir: Path, settings: Settings,
                  on_progress: ProgressCallback | None = None) -> BenchResult:
    """Measure one benchmark at one copy count; failures become a failed/skipped result."""
    reason = first_missing(spec.requires)
    if reason:
        return _empty_result(spec, copies, "skipped", reason)
    if isinstance(toolchain, CompilerMissing) and spec.kernels:
        return _empty_result(spec, copies, "skipped", str(toolchain))
    subs: dict[str, str] = {"shell": str(shell_script_dir())}
    if spec.pin:
        pins = _cpu_pins(spec)
        if isinstance(pins, str):
            return _empty_result(spec, copies, "skipped", pins)
        subs["cpu_a"], subs["cpu_b"] = str(pins[0]), str(pins[1])
    try:
        if spec.native:
            assert isinstance(toolchain, Toolchain)
            program = [str(kernel_binary(spec.kernel, toolchain))]
        else:
            program = python_kernel(spec.kernel[len("py:"):])
        for extra in spec.kernels[1:] if spec.native else spec.kernels:
            assert isinstance(toolchain, Toolchain)
            subs[f"kernel:{extra}"] = str(kernel_binary(extra, toolchain))
    except BuildFailed as exc:
        return _empty_result(spec, copies, "failed", str(exc))

    scratch = None
    if spec.needs_workdir:
        scratch = workdir / f"osmark-{spec.short_name}-{os.getpid()}"
        scratch.mkdir(parents=True, exist_ok=True)
        subs["workdir"] = str(scratch)
    try:
        pinned = settings.pin and spec.placement == "pinned"
        result = _measure(spec, copies, program, subs, scratch, settings, pinned,
                          on_progress)
        if settings.with_reference:
            from osmark.references import run_reference

            result.reference = run_reference(spec, scratch or workdir, copies)
        return result
    except KernelUnsupported as exc:
        return _empty_result(spec, copies, "skipped", str(exc))
    except KernelError as exc:
        return _empty_result(spec, copies, "failed", str(exc))
    except OSError as exc:  # the kernel could not be started at all (ENOEXEC, EMFILE, …)
        return _empty_result(spec, copies, "failed", f"cannot start kernel: {exc}")
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _measure(spec: Benchmark, copies: int, program: list[str], subs: dict[str, str],
             cwd: Path | None, settings: Settings, pinned: bool,
             on_progress: ProgressCallback | None) -> BenchResult:
    started = time.monotonic()
    progress = Progress(spec, copies, "calibrating")
    notify = on_progress or (lambda _p: None)
    notify(progress)

    cpus = usable_cpu_ids() if pinned else None

    def sample(iterations: int) -> list[KernelOutput]:
        return run_kernel(_argv(spec, program, iterations, subs), copies, spec.env, cwd,
                          settings.kernel_timeout, cpus)

    # Calibrate: grow the loop count until one sample's timed loop lasts about sample_time.
    iterations = 1
    for _ in range(MAX_CALIBRATION_STEPS):
        longest = max(o.seconds for o in sample(iterations))
        if longest >= 0.5 * settings.sample_time:
            break
        factor = min(1000.0, settings.sample_time / max(longest, 1e-9))
        iterations = max(iterations + 1, math.ceil(iterations * factor))

    progress.phase = "warm-up"
    notify(progress)
    sample(iterations)  # discarded: caches, page cache, frequency and the scheduler settle

    progress.phase = "sampling"
    values: list[float] = []
    noises: list[monitor.SampleNoise] = []
    retaken = 0
    details: dict = {}
    watch = monitor.SampleMonitor()
    converged = False
    ci = None
    while len(values) < MAX_SAMPLES:
        before = time.monotonic()
        watch.begin()
        outputs = sample(iterations)
        noise = watch.end()
        details = outputs[0].details
        sample_wall = time.monotonic() - before
        if settings.retake_noisy and noise.noisy:
            retaken += 1
        else:
            values.append(_value(spec, outputs))
            noises.append(noise)
        if values:
            centre = stats.median(values)
            ci = stats.median_ci(values) if len(values) >= settings.min_samples else None
            progress.samples, progress.median, progress.ci = list(values), centre, ci
            progress.noisy = sum(n.noisy for n in noises)
            notify(progress)
            if ci and stats.relative_half_width(centre, *ci) <= spec.tolerance:
                converged = True
                break
        if time.monotonic() - started + sample_wall > settings.budget:
            break
    if not values:
        raise KernelError(f"every one of {retaken} samples was taken while the machine was "
                          "noisy (--retake-noisy): nothing to report")

    progress.phase = "done"
    notify(progress)
    result = _empty_result(spec, copies, "ok", None)
    result.median = stats.median(values)
    result.ci_low, result.ci_high = ci if ci else (None, None)
    result.mad = stats.mad(values)
    result.min, result.max = min(values), max(values)
    result.n = len(values)
    result.quality, result.quality_reason, result.noisy_samples = monitor.label(
        noises, copies, monitor.cgroup_cpu_limit())
    if retaken:
        note = f"{retaken} noisy sample(s) re-taken"
        result.quality_reason = f"{result.quality_reason}; {note}" if result.quality_reason \
            else note
    result.retaken = retaken
    result.converged = converged
    result.pinned = pinned
    result.samples = values
    result.details = details
    result.ops_per_sample = iterations
    result.seconds = round(time.monotonic() - started, 3)
    return result
