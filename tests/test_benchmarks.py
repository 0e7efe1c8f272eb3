"""Every benchmark runs for real with a tiny budget; structure and sanity only, no timings."""

import math
import os

import pytest

from osmark import engine
from osmark.catalog import BENCHMARKS, BY_ID
from osmark.kernels.build import find_toolchain

TINY = engine.Settings(budget=0.4, sample_time=0.01, min_samples=5, kernel_timeout=60)


def _check_ok(result, spec, copies):
    assert result.status == "ok", result.reason
    assert result.id == spec.id
    assert result.unit == spec.unit
    assert result.copies == copies
    assert result.n >= 1 and len(result.samples) == result.n
    assert all(math.isfinite(v) and v > 0 for v in result.samples)
    assert result.min <= result.median <= result.max
    assert result.ops_per_sample >= 1
    if result.ci_low is not None:
        assert result.ci_low <= result.median <= result.ci_high


@pytest.mark.parametrize("spec", BENCHMARKS, ids=[b.id for b in BENCHMARKS])
def test_every_benchmark_runs(spec, workdir):
    result = engine.run_benchmark(spec, 1, find_toolchain(), workdir, TINY)
    if spec.pin == "cross" and len(os.sched_getaffinity(0)) < 2:
        assert result.status == "skipped"
        assert "only one CPU" in result.reason
        return
    _check_ok(result, spec, 1)
    assert list(workdir.iterdir()) == []  # scratch files removed


@pytest.mark.parametrize("test_id", ["ub.dhry2reg", "ub.context1", "ub.fstime", "ub.shell1"])
def test_two_copies_sum_throughput(test_id, workdir):
    spec = BY_ID[test_id]
    result = engine.run_benchmark(spec, 2, find_toolchain(), workdir, TINY)
    _check_ok(result, spec, 2)


def test_latency_values_are_nanoseconds(workdir):
    result = engine.run_benchmark(BY_ID["os.syscall"], 1, find_toolchain(), workdir, TINY)
    # a getppid() costs tens to thousands of ns on any machine this runs on, never seconds
    assert 1 < result.median < 1e6


def test_progress_is_reported_between_samples(workdir):
    phases = []
    engine.run_benchmark(BY_ID["ub.pipe"], 1, find_toolchain(), workdir, TINY,
                         lambda p: phases.append((p.phase, len(p.samples))))
    assert phases[0] == ("calibrating", 0)
    assert ("warm-up", 0) in phases
    sampling = [n for phase, n in phases if phase == "sampling"]
    assert sampling == list(range(1, len(sampling) + 1))
    assert phases[-1][0] == "done"


def test_hung_kernel_is_killed_and_reported_failed(workdir):
    hang = engine.Settings(budget=5, sample_time=5, kernel_timeout=0.5)
    result = engine.run_benchmark(BY_ID["ub.pipe"], 1, find_toolchain(), workdir, hang)
    assert result.status == "failed"
    assert "timed out" in result.reason
    assert not engine._live


def _fake_kernel(monkeypatch, rates):
    """Replace the kernel processes with outputs whose rates come from `rates` in turn."""
    feed = iter(rates)

    def fake(argv, copies, env, cwd, timeout, cpus=None):
        iterations = int(argv[2])
        rate = next(feed)
        return [engine.KernelOutput(iterations, iterations / rate, 0)] * copies

    monkeypatch.setattr(engine, "run_kernel", fake)


def test_stops_once_the_ci_is_within_tolerance(monkeypatch, workdir):
    # calibration (1 op is far below 0.25 s, then on target), warm-up, then samples
    _fake_kernel(monkeypatch, [1e6, 1e6, 1e6] + [1e6 * (1 + 0.001 * i) for i in range(50)])
    result = engine.run_benchmark(BY_ID["ub.pipe"], 1, find_toolchain(), workdir,
                                  engine.Settings(budget=60))
    assert result.converged
    assert result.n == 6  # the first n with a 95 % CI of the median: [min, max]
    assert result.ci_low == min(result.samples) and result.ci_high == max(result.samples)


def test_budget_exhaustion_is_reported_unconverged(monkeypatch, workdir):
    # alternating ±20 %: the CI never narrows to ±1 %
    noisy = [1e6, 1e6, 1e6] + [1e6 * (1.2 if i % 2 else 0.8) for i in range(10_000)]
    _fake_kernel(monkeypatch, noisy)
    result = engine.run_benchmark(BY_ID["ub.pipe"], 1, find_toolchain(), workdir,
                                  engine.Settings(budget=0.5))
    assert result.status == "ok"
    assert not result.converged
    assert result.n >= 6
