"""The noise monitor: during every sample, how much CPU did something else use?

Per sample it reads /proc/stat (all CPU time on the machine, incl. steal) and
getrusage (the CPU time of osmark and of the kernels it waited for). The difference
is CPU time used outside osmark's own processes. Only when that exceeds a threshold
does it scan /proc/[pid]/stat to name the processes responsible, so the monitor costs
two small file reads and two system calls per sample.

A sample is noisy when other user-space processes used at least FOREIGN_CPU_SHARE of a
CPU during it, or when the hypervisor stole at least STEAL_SHARE of the CPU time. A
result is quiet with no noisy sample, noisy with any, and invalid when the environment
cannot run it as intended (a cgroup CPU quota below the number of copies).
"""

from __future__ import annotations

import os
import resource
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from osmark import noise

FOREIGN_CPU_SHARE = 0.10  # of one CPU, averaged over the sample
STEAL_SHARE = 0.05  # of all CPU time during the sample


@dataclass
class SampleNoise:
    foreign_share: float  # CPUs' worth of time used outside osmark, e.g. 0.41
    steal_share: float
    culprits: list[noise.Consumer] = field(default_factory=list)

    @property
    def noisy(self) -> bool:
        attributed = sum(c.cpu_share for c in self.culprits)
        return attributed >= FOREIGN_CPU_SHARE or self.steal_share >= STEAL_SHARE


def _own_cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class SampleMonitor:
    """Brackets samples with begin()/end(); never runs while a kernel is timing."""

    def __init__(self) -> None:
        self._cpus = os.cpu_count() or 1
        self._snapshot = noise.process_cpu_snapshot()
        self._snapshot_at = time.monotonic()

    def begin(self) -> None:
        self._t0 = time.monotonic()
        self._cpu0 = noise.read_cpu_times()
        self._own0 = _own_cpu_seconds()

    def end(self) -> SampleNoise:
        wall = max(time.monotonic() - self._t0, 1e-6)
        cpu1 = noise.read_cpu_times()
        own = _own_cpu_seconds() - self._own0
        busy = cpu1.busy - self._cpu0.busy
        steal = cpu1.steal - self._cpu0.steal
        total = busy + steal + (cpu1.idle - self._cpu0.idle)
        sample = SampleNoise(
            foreign_share=max(0.0, busy - own) / wall,
            steal_share=steal / total if total > 0 else 0.0,
        )
        if sample.foreign_share >= FOREIGN_CPU_SHARE:
            now = noise.process_cpu_snapshot()
            at = time.monotonic()
            sample.culprits = [
                c for c in noise.top_consumers(self._snapshot, now, at - self._snapshot_at,
                                               {os.getpid()})
                if c.cpu_share >= FOREIGN_CPU_SHARE / 2
            ]
            self._snapshot, self._snapshot_at = now, at
        return sample


def cgroup_cpu_limit() -> float | None:
    """CPUs allowed by the cgroup v2 quota of this process, or None when unlimited."""
    try:
        line = Path("/proc/self/cgroup").read_text().splitlines()[0]
        group = line.split("::", 1)[1] if "::" in line else ""
        quota, period = Path(f"/sys/fs/cgroup{group}/cpu.max").read_text().split()[:2]
    except (OSError, IndexError, ValueError):
        return None
    if quota == "max":
        return None
    return int(quota) / int(period)


def label(samples: list[SampleNoise], copies: int,
          cpu_limit: float | None) -> tuple[str, str | None, int]:
    """(quality, reason, number of noisy samples) for one result's kept samples."""
    noisy = [s for s in samples if s.noisy]
    if cpu_limit is not None and copies > cpu_limit + 1e-9:
        return ("invalid", f"the cgroup CPU quota allows {cpu_limit:g} CPUs, fewer than the "
                f"{copies} copies", len(noisy))
    if not noisy:
        return "quiet", None, 0
    reasons = []
    by_name: dict[str, list[float]] = defaultdict(list)
    for sample in noisy:
        # Several processes of one name (a client and its server) count once per sample,
        # with their shares added.
        per_sample: dict[str, float] = defaultdict(float)
        for culprit in sample.culprits:
            per_sample[culprit.name] += culprit.cpu_share
        for name, share in per_sample.items():
            by_name[name].append(share)
    for name, shares in sorted(by_name.items(), key=lambda kv: -sum(kv[1]))[:3]:
        reasons.append(f"{name} used {sum(shares) / len(shares):.0%} of a CPU during "
                       f"{len(shares)} of {len(samples)} samples")
    stolen = [s.steal_share for s in noisy if s.steal_share >= STEAL_SHARE]
    if stolen:
        reasons.append(f"the hypervisor stole {max(stolen):.0%} of the CPU time during "
                       f"{len(stolen)} of {len(samples)} samples")
    if not reasons:
        reasons.append(f"CPU time outside osmark's processes during {len(noisy)} of "
                       f"{len(samples)} samples")
    return "noisy", "; ".join(reasons), len(noisy)
