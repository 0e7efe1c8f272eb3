"""Cheap readers of the machine's noise signals in /proc and /sys (no rendering, no CLI).

`osmark doctor` takes one reading before and one after a short window; a per-sample
noise monitor can take the same readings around each sample. Every reader is a few file
reads, never a subprocess or a sleep. PROC and SYS are module attributes so tests can
point them at a fake tree.

Conventions: CPU times are in seconds (ticks / SC_CLK_TCK); a reader whose file is
missing returns None or an empty container, never an invented "ok" value.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
SYS = Path("/sys")

COMM_LEN = 15  # the kernel truncates /proc/PID/comm to TASK_COMM_LEN - 1 characters
VIRTIO_ID_BALLOON = 5  # virtio device id of the memory balloon
VIRTIO_BALLOON_F_REPORTING = 5  # feature bit: free page reporting


def _ticks_per_second() -> int:
    try:
        return os.sysconf("SC_CLK_TCK")
    except (ValueError, OSError):
        return 100


def _read(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return None


# --- whole-machine CPU time: /proc/stat ------------------------------------------------


@dataclass(frozen=True)
class CpuTimes:
    """Cumulative CPU time of all CPUs since boot, in seconds.

    busy = user + nice + system + irq + softirq (guest and guest_nice are already
    counted in user and nice, so they are not added again); idle = idle + iowait;
    steal is time a hypervisor ran something else while this guest wanted to run.
    """

    busy: float
    idle: float
    steal: float

    @property
    def total(self) -> float:
        return self.busy + self.idle + self.steal


def read_cpu_times() -> CpuTimes:
    """The aggregate "cpu" line of /proc/stat. Raises OSError if /proc/stat is unreadable."""
    text = (PROC / "stat").read_text()
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            values = [int(v) for v in fields[1:]] + [0] * 10
            user, nice, system, idle, iowait, irq, softirq, steal = values[:8]
            tick = _ticks_per_second()
            return CpuTimes(
                busy=(user + nice + system + irq + softirq) / tick,
                idle=(idle + iowait) / tick,
                steal=steal / tick,
            )
    raise OSError(f"{PROC / 'stat'}: no aggregate cpu line")


def steal_fraction(before: CpuTimes, after: CpuTimes) -> float:
    """Share of all CPU time between two readings that was stolen (0..1)."""
    total = after.total - before.total
    return (after.steal - before.steal) / total if total > 0 else 0.0


# --- per-process CPU time: /proc/PID/stat ----------------------------------------------


@dataclass(frozen=True)
class ProcCpu:
    pid: int
    ppid: int
    name: str
    cpu_seconds: float  # utime + stime, all threads
    start_ticks: int  # starttime: tells a reused pid from the process seen before


@dataclass(frozen=True)
class Consumer:
    pid: int
    name: str
    cpu_share: float  # of ONE CPU over the interval: 1.0 = one CPU busy all the time


def parse_proc_stat(text: str) -> tuple[int, str, int, int, int, int] | None:
    """(pid, comm, ppid, utime, stime, starttime) from one /proc/PID/stat line.

    comm sits in parentheses and may itself hold spaces and ')', so it runs from the
    first '(' to the LAST ')'; the numeric fields follow.
    """
    open_at, close_at = text.find("("), text.rfind(")")
    if open_at < 0 or close_at < open_at:
        return None
    rest = text[close_at + 1 :].split()
    # rest[0] is field 3 (state); utime, stime are fields 14, 15; starttime is field 22.
    if len(rest) < 20:
        return None
    try:
        return (int(text[:open_at]), text[open_at + 1 : close_at], int(rest[1]),
                int(rest[11]), int(rest[12]), int(rest[19]))
    except ValueError:
        return None


def _full_name(pid: int, comm: str) -> str:
    """comm, or argv[0]'s basename when comm is truncated and argv[0] extends it."""
    if len(comm) < COMM_LEN:
        return comm
    raw = _read(PROC / str(pid) / "cmdline")
    if not raw:
        return comm
    argv0 = os.path.basename(raw.split("\0", 1)[0])
    return argv0 if argv0.startswith(comm) else comm


def process_cpu_snapshot() -> dict[int, ProcCpu]:
    """CPU time of every process now; processes that vanish while being read are skipped."""
    tick = _ticks_per_second()
    snapshot: dict[int, ProcCpu] = {}
    try:
        entries = list(os.scandir(PROC))
    except OSError:
        return snapshot
    for entry in entries:
        if not entry.name.isdigit():
            continue
        text = _read(Path(entry.path) / "stat")
        parsed = parse_proc_stat(text) if text else None
        if parsed is None:
            continue
        pid, comm, ppid, utime, stime, start = parsed
        snapshot[pid] = ProcCpu(pid, ppid, _full_name(pid, comm), (utime + stime) / tick,
                                start)
    return snapshot


def descendants(snapshot: dict[int, ProcCpu], root: int) -> set[int]:
    """root and every process below it in the snapshot's parent links."""
    children: dict[int, list[int]] = {}
    for proc in snapshot.values():
        children.setdefault(proc.ppid, []).append(proc.pid)
    found, todo = {root}, [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def top_consumers(before: dict[int, ProcCpu], after: dict[int, ProcCpu],
                  interval_s: float, exclude_pids: set[int]) -> list[Consumer]:
    """Processes that used CPU between two snapshots, busiest first.

    A process absent from `before` (or whose pid was reused) counts from zero; one that
    exited before `after` cannot be seen. Kernel threads count like any process.
    """
    if interval_s <= 0:
        return []
    found = []
    for pid, now in after.items():
        if pid in exclude_pids:
            continue
        then = before.get(pid)
        used = now.cpu_seconds
        if then is not None and then.start_ticks == now.start_ticks:
            used -= then.cpu_seconds
        if used > 0:
            found.append(Consumer(pid, now.name, used / interval_s))
    found.sort(key=lambda c: (-c.cpu_share, c.pid))
    return found


# --- pressure, load, swap ----------------------------------------------------------------


def read_psi(resource: str) -> dict[str, dict[str, float]] | None:
    """/proc/pressure/RESOURCE ("cpu", "memory", "io") as
    {"some": {"avg10": %, "avg60": %, "avg300": %, "total": µs}, "full": {...}};
    None where PSI is absent or disabled (psi=0 makes the read fail)."""
    text = _read(PROC / "pressure" / resource)
    if not text:
        return None
    result: dict[str, dict[str, float]] = {}
    for line in text.splitlines():
        if not line.split():
            continue
        kind, *pairs = line.split()
        values: dict[str, float] = {}
        for pair in pairs:
            key, _, value = pair.partition("=")
            try:
                values[key] = float(value)
            except ValueError:
                continue
        result[kind] = values
    return result or None


@dataclass(frozen=True)
class LoadAvg:
    load1: float
    load5: float
    load15: float
    runnable: int  # field 4, before the slash: runnable tasks now, this reader included
    tasks: int


def read_loadavg() -> LoadAvg | None:
    text = _read(PROC / "loadavg")
    try:
        fields = text.split() if text else []
        runnable, _, tasks = fields[3].partition("/")
        return LoadAvg(float(fields[0]), float(fields[1]), float(fields[2]), int(runnable),
                       int(tasks))
    except (IndexError, ValueError):
        return None


def read_vmstat_swaps() -> tuple[int, int]:
    """(pswpin, pswpout): pages swapped in and out since boot; (0, 0) if unreadable."""
    values = {"pswpin": 0, "pswpout": 0}
    for line in (_read(PROC / "vmstat") or "").splitlines():
        key, _, value = line.partition(" ")
        if key in values:
            with contextlib.suppress(ValueError):
                values[key] = int(value)
    return values["pswpin"], values["pswpout"]


# --- cpufreq, thermal, memory ballooning: /sys --------------------------------------------


def _cpu_dirs() -> list[tuple[int, Path]]:
    base = SYS / "devices" / "system" / "cpu"
    try:
        entries = list(os.scandir(base))
    except OSError:
        return []
    dirs = [(int(e.name[3:]), Path(e.path)) for e in entries
            if e.name.startswith("cpu") and e.name[3:].isdigit()]
    return sorted(dirs)


def read_governors() -> dict[int, str]:
    """CPU number -> cpufreq scaling_governor; empty where there is no cpufreq (VMs)."""
    found = {}
    for cpu, path in _cpu_dirs():
        text = _read(path / "cpufreq" / "scaling_governor")
        if text and text.strip():
            found[cpu] = text.strip()
    return found


def read_throttle_counts() -> dict[str, int]:
    """"cpuN/core_throttle_count" and "cpuN/package_throttle_count" -> events since boot
    (x86 thermal_throttle); empty where the kernel exposes none. Package counts repeat
    on every CPU of the package."""
    found = {}
    for cpu, path in _cpu_dirs():
        for kind in ("core_throttle_count", "package_throttle_count"):
            text = _read(path / "thermal_throttle" / kind)
            if text and text.strip().isdigit():
                found[f"cpu{cpu}/{kind}"] = int(text)
    return found


def free_page_reporting() -> bool:
    """Whether a virtio balloon with free page reporting is bound (VIRTIO_BALLOON_F_REPORTING).

    The sysfs `features` file holds one '0'/'1' character per feature bit, bit 0 first.
    """
    base = SYS / "bus" / "virtio" / "devices"
    try:
        devices = list(os.scandir(base))
    except OSError:
        return False
    for device in devices:
        path = Path(device.path)
        ident = (_read(path / "device") or "").strip()
        try:
            if int(ident, 0) != VIRTIO_ID_BALLOON:
                continue
        except ValueError:
            continue
        if not (path / "driver").exists():
            continue
        features = (_read(path / "features") or "").strip()
        if len(features) > VIRTIO_BALLOON_F_REPORTING and \
                features[VIRTIO_BALLOON_F_REPORTING] == "1":
            return True
    return False


def page_reporting_order() -> int | None:
    """The smallest block (as a page order) the guest reports free; None if unknown."""
    text = _read(SYS / "module" / "page_reporting" / "parameters" / "page_reporting_order")
    try:
        return int(text) if text else None
    except ValueError:
        return None
