"""The noise monitor: a CPU hog beside a run makes its result noisy, with the hog named."""

import os
import subprocess
import sys
import time

import pytest

from osmark import engine, monitor, noise
from osmark.catalog import BY_ID
from osmark.kernels.build import find_toolchain

SHORT = engine.Settings(budget=1.5, sample_time=0.05)


@pytest.fixture()
def hog(tmp_path):
    """A busy-loop child named osmark-hog, on the CPU the pinned kernel does not use."""
    path = tmp_path / "osmark-hog"
    path.symlink_to(sys.executable)
    cpus = sorted(os.sched_getaffinity(0))
    cpu = cpus[1] if len(cpus) > 1 else cpus[0]
    child = subprocess.Popen([str(path), "-c", "while True: pass"],
                             preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
    time.sleep(0.2)
    yield child
    child.kill()
    child.wait()


def test_run_beside_a_hog_is_labelled_noisy(hog, workdir):
    result = engine.run_benchmark(BY_ID["ub.dhry2reg"], 1, find_toolchain(), workdir, SHORT)
    assert result.status == "ok"
    assert result.quality == "noisy"
    assert "osmark-hog used" in result.quality_reason
    assert "% of a CPU during" in result.quality_reason
    assert result.noisy_samples >= 1


def test_retake_noisy_discards_noisy_samples(hog, workdir):
    settings = engine.Settings(budget=1.5, sample_time=0.05, retake_noisy=True)
    result = engine.run_benchmark(BY_ID["ub.dhry2reg"], 1, find_toolchain(), workdir, settings)
    # every sample is noisy while the hog runs: all are re-taken and none is kept
    assert result.status == "failed"
    assert "--retake-noisy" in result.reason


def _sample(share, culprits=(), steal=0.0):
    return monitor.SampleNoise(
        foreign_share=share, steal_share=steal,
        culprits=[noise.Consumer(pid=1, name=name, cpu_share=s) for name, s in culprits])


def test_label_rules():
    quiet = _sample(0.01)
    chrome = _sample(0.45, [("chromium", 0.41)])
    assert monitor.label([quiet, quiet], 1, None) == ("quiet", None, 0)
    quality, reason, noisy = monitor.label([quiet, chrome, chrome], 1, None)
    assert quality == "noisy" and noisy == 2
    assert reason == "chromium used 41% of a CPU during 2 of 3 samples"
    stolen = _sample(0.0, steal=0.2)
    assert "hypervisor stole 20%" in monitor.label([stolen], 1, None)[1]
    # unattributed kernel-side time below the threshold does not make a sample noisy
    assert not _sample(0.3, [("kworker/0:1", 0.04)]).noisy
    quality, reason, _ = monitor.label([quiet], 2, 1.0)
    assert quality == "invalid" and "quota allows 1 CPUs" in reason


def test_cgroup_limit_is_a_number_or_none():
    limit = monitor.cgroup_cpu_limit()
    assert limit is None or limit > 0


def test_processes_of_one_name_count_once_per_sample():
    """A client and its server both named `net`: one sample, not two."""
    both = monitor.SampleNoise(foreign_share=0.6, steal_share=0.0, culprits=[
        noise.Consumer(101, "net", 0.3), noise.Consumer(102, "net", 0.3)])
    quality, reason, noisy = monitor.label([both, both], 1, None)
    assert quality == "noisy" and noisy == 2
    assert reason == "net used 60% of a CPU during 2 of 2 samples"
